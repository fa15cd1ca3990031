"""The credential a target holds, and the masking every secret gets the moment it exists."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


def mask(secret: str | None) -> None:
    """
    Register ``secret`` with Airflow's secrets masker. A no-op for empty values and in a process that has not
    loaded Airflow (a script using the REST client): importing Airflow just to mask would read, and create, an
    AIRFLOW_HOME.
    """
    if not secret or "airflow.sdk" not in sys.modules:
        return
    from messaging_platform_provider.version_compat import mask_secret

    mask_secret(secret)


@dataclass(frozen=True)
class Credential:
    """An API key (the HTTP Basic user name) and its secret. Neither ``repr`` nor ``str`` shows the secret."""

    key: str
    secret: str

    def __post_init__(self) -> None:
        mask(self.secret)

    def __repr__(self) -> str:
        return f"Credential(key={self.key!r}, secret='***')"

    __str__ = __repr__


def as_credential(value: Any) -> Credential | None:
    """
    What a target's reader returned, as a ``Credential``: a ``Credential``, a ``(key, secret)`` pair, a mapping
    with ``key``/``secret`` (or ``login``/``password``), or ``None``/empty for "holds nothing".
    """
    if value is None:
        return None
    if isinstance(value, Credential):
        return value
    if isinstance(value, Mapping):
        key = value.get("key", value.get("login"))
        secret = value.get("secret", value.get("password"))
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        key, secret = value
    else:
        raise TypeError(f"a target must return a Credential, a (key, secret) pair or a mapping, not {type(value)}")
    if not key or not secret:
        return None
    return Credential(str(key), str(secret))
