"""The async client trusts the CA bundle the sync client (``requests``) would, and loads it once per thread."""

from __future__ import annotations

import datetime
import threading

import pytest

from messaging_platform_provider.client import async_client


def self_signed_pem(name: str) -> bytes:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM)


@pytest.mark.parametrize("variable", ["REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"])
def test_the_bundle_requests_would_use_is_trusted_and_loaded_once_per_thread(monkeypatch, tmp_path, variable):
    bundle = tmp_path / "bundle.pem"
    bundle.write_bytes(self_signed_pem(f"Test CA {variable}"))
    for name in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, str(bundle))
    context = async_client._verify()
    [trusted] = context.get_ca_certs()
    assert dict(entry[0] for entry in trusted["subject"])["commonName"] == f"Test CA {variable}"
    assert async_client._verify() is context  # the next client in this thread shares it
    other: list[object] = []
    thread = threading.Thread(target=lambda: other.append(async_client._verify()))
    thread.start()
    thread.join()
    assert other[0] is not context  # another thread has its own: the HTTP client sets ALPN on it per connection
    monkeypatch.delenv(variable)
    default = async_client._verify()  # no bundle named: httpx's default trust
    assert default is not context and async_client._verify() is default
