"""
The receiver against bodies that pass the payload models but that the store cannot hold, hostile nesting, tokens of
other accounts, a store that cannot be opened, and a trailing slash: never a 500, never a 503 that redelivery
cannot cure, never one callback failing another.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from messaging_platform_provider.callbacks.plugin import LazyReceiverApp
from messaging_platform_provider.callbacks.receiver import Receiver
from messaging_platform_provider.callbacks.server import ReceiverServer
from messaging_platform_provider.callbacks.settings import BIND_TOKENS_ENV, TOKENS_ENV
from messaging_platform_provider.callbacks.store import NewCallback
from messaging_platform_provider.callbacks.writer import BatchWriter, CallbackRejected
from tests.support.callback_helpers import BOUND_TOKEN, TOKEN, callback, now_timestamp, post, transaction_sizes

OTHER_TOKEN = "9a7c2e14-55d3-4f0b-8b1e-0c6d4a2f7b93"


@pytest.fixture
def database_url(any_database_url: str) -> str:
    """Every store-facing test here runs over SQLite and over PostgreSQL."""
    return any_database_url


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("callback_type", "change", "field"),
    [
        (1, {"AccountId": 2**63}, "AccountId"),
        (1, {"AccountId": -(2**63) - 1}, "AccountId"),
        (1, {"CallbackTimestamp": now_timestamp() + "." + "0" * 180}, "CallbackTimestamp"),
        (1, {"Keyword": "ß" * 255}, "Keyword"),  # "SS" * 255 once upper-cased: 510 characters
        (1, {"Keyword": "JO\x00IN"}, "Keyword"),
        (1, {"PhoneNumber": "+" + "1" * 63 + "5"}, "PhoneNumber"),
        (8, {"AccountId": 2**64, "ParentId": 1001}, "AccountId"),
    ],
    ids=[
        "account-2^63",
        "account-below-int64",
        "timestamp-200",
        "keyword-eszett",
        "keyword-nul",
        "phone-65",
        "new-account-2^64",
    ],
)
def test_a_callback_the_store_cannot_hold_is_refused_422_naming_the_field(
    receiver, store, callback_type, change, field
):
    response = post(receiver.url, callback(callback_type, **change))
    assert response.status_code == 422, response.text
    assert [e["loc"] for e in response.json()["detail"]] == [[field]]
    assert TOKEN not in response.text
    assert store.count() == 0
    assert post(receiver.url, callback(1)).status_code == 200  # the receiver is fine


@pytest.mark.parametrize(
    "change",
    [{"Keyword": "\ud800"}, {"Campaign": {"Text": ["ok", "\udfff"]}}, {"Extra\ud83d": 1}],
    ids=["keyword", "nested-extra", "key"],
)
def test_a_lone_surrogate_anywhere_is_refused_422(receiver, store, change):
    """Valid JSON (``"\\ud800"``) but no Unicode text: it could be neither stored nor handed on (was a 500)."""
    response = post(receiver.url, callback(1, **change))
    assert response.status_code == 422 and response.json()["detail"][0]["type"] == "unicode"
    assert store.count() == 0


@pytest.mark.parametrize(
    ("callback_type", "change", "loc"),
    [
        (1, {"ContactId": 2**64}, ["ContactId"]),  # msgpack: the triggerer's runner dies on it (was 200)
        (1, {"ContactId": str(2**64)}, ["ContactId"]),  # digits in a string: the model reads it as that integer
        (1, {"SubscriptionId": -(2**63) - 1}, ["SubscriptionId"]),
        (1, {"Campaign": {"Items": [1, 2**70]}}, ["Campaign", "Items", 1]),
        (11, {"Message": "hi\x00there"}, ["Message"]),  # PostgreSQL JSONB refuses it (was 200)
        (1, {"PhoneNumber": "+1555\x00"}, ["PhoneNumber"]),  # its column is normalised, the payload was not
        (1, {"Campaign": {"Note\x00": 1}}, ["Campaign", "Note\x00"]),
        (
            1,
            {"Campaign": {"__classname__": "os.system", "__version__": 1, "__data__": "x"}},
            ["Campaign", "__classname__"],
        ),
        (1, {"Extra": {"__type": "set", "__var": [1]}}, ["Extra", "__type"]),  # XCom would hand on a set
        (11, {"Message": "m" * 16_385}, ["Message"]),
        (1, {"N" * 256: 1}, ["N" * 256]),
    ],
    ids=[
        "int-2^64",
        "int-text-2^64",
        "int-below-int64",
        "nested-int",
        "nul-message",
        "nul-phone",
        "nul-name",
        "serde-classname",
        "basic-serialization-type",
        "long-text",
        "long-name",
    ],
)
def test_a_callback_a_consumer_could_not_carry_is_refused_422_naming_the_field(
    receiver, store, callback_type, change, loc
):
    """A 200 means every consumer can carry it: the triggerer's messages, XCom, PostgreSQL's JSONB."""
    response = post(receiver.url, callback(callback_type, **change))
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == loc and response.json()["detail"][0]["type"] == "carriage"
    assert "os.system" not in response.text and TOKEN not in response.text  # names the field, never the value
    assert store.count() == 0


def test_limits_at_the_edge_are_stored(database_url, store):
    edge = callback(1, AccountId=2**63 - 1, Keyword="k" * 255, CallbackTimestamp=now_timestamp() + "." + "0" * 44)
    extremes = callback(11, ContactId=-(2**63), Campaign={"Count": 2**63 - 1, "Text": "a" * 16_384, "N" * 255: 1})
    with ReceiverServer(receiver=Receiver(tokens=[TOKEN], database_url=database_url, bind_tokens=False)) as server:
        assert post(server.url, edge).json()["status"] == "stored"
        assert post(server.url, extremes).json()["status"] == "stored"
    assert {s.account_id for s in store.read_after(0)} == {2**63 - 1, 1001}


def item(account_id: int = 1001) -> NewCallback:
    return NewCallback(
        transaction_id=str(uuid.uuid4()),
        callback_type=1,
        account_id=account_id,
        keyword="JOIN",
        phone_number="+15550100000",
        callback_timestamp="2026-01-01T00:00:00",
        payload={"Keyword": "JOIN"},
    )


def test_one_unstorable_callback_never_fails_the_others_of_its_batch(store, monkeypatch):
    """Past validation (a gap in it, a driver's own limit): the rest of the transaction is still stored."""
    good = [item() for _ in range(6)]
    bad = item(account_id=2**63)  # the database driver refuses it
    writer = BatchWriter(store)
    transactions = transaction_sizes(store, monkeypatch)

    async def run() -> list[Any]:
        submits = [writer.submit(i) for i in good[:3] + [bad] + good[3:]]
        try:  # submitted in one turn of the loop: the writer takes them all as one batch
            return await asyncio.gather(*submits, return_exceptions=True)
        finally:
            await writer.aclose()

    outcomes = asyncio.run(run())
    assert transactions == [7] + [1] * 7  # the batch of all seven failed, then each was written alone
    assert outcomes[:3] + outcomes[4:] == [True] * 6
    assert isinstance(outcomes[3], CallbackRejected)
    assert sorted(store.transaction_ids()) == sorted(i.transaction_id for i in good)


def test_hostile_nesting_without_a_token_is_refused_422_without_a_traceback(receiver, store, caplog):
    caplog.set_level(logging.DEBUG)
    response = httpx.post(receiver.url, content=b"[" * 10000 + b"]" * 10000, timeout=10)
    assert response.status_code == 422
    assert response.json()["detail"][0]["type"] in ("json_invalid", "json_depth")
    response = httpx.post(receiver.url, content=b'{"a":' * 5000 + b"1" + b"}" * 5000, timeout=10)
    assert response.status_code == 422
    assert "Traceback" not in caplog.text and not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_deep_nesting_with_a_valid_token_is_refused_422_and_moderate_nesting_is_stored(receiver, store, caplog):
    caplog.set_level(logging.DEBUG)
    response = post(receiver.url, callback(1, Extra=nested(300)))
    assert response.status_code == 422 and response.json()["detail"][0]["type"] == "json_depth"
    assert post(receiver.url, callback(1, Campaign=nested(20))).json()["status"] == "stored"
    assert store.count() == 1
    assert "Traceback" not in caplog.text


def test_nan_and_infinity_are_not_json(receiver, store):
    for literal in (b"NaN", b"Infinity", b"1e400"):
        raw = (
            b'{"AccountId":1001,"CallbackTimestamp":"'
            + now_timestamp().encode()  # fresh: the 422 is for the number, not for a stale timestamp
            + b'","CallbackToken":"'
            + TOKEN.encode()
            + b'","CallbackType":3,"CallbackURL":"u","TransactionId":"'
            + str(uuid.uuid4()).encode()
            + b'","PhoneNumber":"+1555","Answer":'
            + literal
            + b"}"
        )
        response = httpx.post(receiver.url, content=raw, timeout=10)
        assert response.status_code == 422 and response.json()["detail"][0]["type"] == "json_invalid", literal
    assert store.count() == 0


def test_fractional_and_exponent_numbers_are_stored_as_sent(receiver, store):
    """Only NaN, Infinity and numbers beyond a double are refused: an ordinary fraction is a callback like any."""
    sent = callback(1, Campaign={"Rate": 0.25, "Scale": 1.5e-3, "Whole": 2.0})
    assert post(receiver.url, sent).json()["status"] == "stored"
    (stored,) = store.read_after(0)
    assert stored.payload["Campaign"] == {"Rate": 0.25, "Scale": 1.5e-3, "Whole": 2.0}


def test_a_field_the_store_cannot_hold_is_answered_as_a_store_limit(receiver, store):
    """The documented 422 for the store's columns: the field in ``loc``, why in ``msg``, ``"type": "store_limit"``."""
    response = post(receiver.url, callback(1, Keyword="ß" * 200))  # 400 characters once upper-cased ("SS")
    assert response.status_code == 422, response.text
    assert response.json()["detail"] == [
        {
            "loc": ["Keyword"],
            "msg": "is longer than the store holds (255 characters, after normalisation)",
            "type": "store_limit",
        }
    ]
    assert store.count() == 0


@pytest.fixture
def two_accounts(database_url):
    with ReceiverServer(tokens=[BOUND_TOKEN, f"2002:{OTHER_TOKEN}"], database_url=database_url) as server:
        yield server


def test_a_token_only_authenticates_its_own_accounts_callbacks(two_accounts, store):
    url = two_accounts.url
    assert post(url, callback(1, AccountId=1001, CallbackToken=OTHER_TOKEN)).status_code == 401
    assert post(url, callback(1, AccountId=2002, CallbackToken=TOKEN)).status_code == 401
    assert post(url, callback(1, AccountId=1001, CallbackToken=TOKEN)).status_code == 200
    assert post(url, callback(1, AccountId=2002, CallbackToken=OTHER_TOKEN)).status_code == 200
    # NewAccount: AccountId is the new account; the event goes to the parent's records with the parent's token
    assert post(url, callback(8, AccountId=777, ParentId=2002, CallbackToken=OTHER_TOKEN)).status_code == 200
    assert post(url, callback(8, AccountId=778, ParentId=1001, CallbackToken=OTHER_TOKEN)).status_code == 401
    assert sorted(s.account_id for s in store.read_after(0)) == [777, 1001, 2002]


def test_a_parent_token_cannot_speak_for_an_account_with_a_token_of_its_own(two_accounts, store):
    """With 1001's token, a NewAccount callback about 2002 (a tenant with its own token) was stored as 2002's."""
    hijack = callback(8, AccountId=2002, ParentId=1001, CallbackToken=TOKEN)
    assert post(two_accounts.url, hijack).status_code == 401
    assert (
        post(two_accounts.url, callback(8, AccountId=2002, ParentId=1001, CallbackToken=OTHER_TOKEN)).status_code == 200
    )
    assert [s.account_id for s in store.read_after(0)] == [2002]


def test_bare_tokens_are_ignored_while_binding_is_on_and_accepted_for_any_account_when_it_is_off(
    database_url, store, monkeypatch
):
    with ReceiverServer(tokens=[TOKEN], database_url=database_url) as server:
        assert post(server.url, callback(1)).status_code == 503  # no usable token
    monkeypatch.setenv(BIND_TOKENS_ENV, "false")
    with ReceiverServer(tokens=[TOKEN, OTHER_TOKEN], database_url=database_url) as server:
        assert post(server.url, callback(1, AccountId=2002, CallbackToken=TOKEN)).status_code == 200
    receiver = Receiver(tokens=[BOUND_TOKEN], database_url=database_url, bind_tokens=False)
    with ReceiverServer(receiver=receiver) as server:
        assert post(server.url, callback(1, AccountId=3003)).status_code == 200
    assert store.count() == 2


def test_a_bad_binding_setting_or_entry_names_no_token(database_url, monkeypatch):
    monkeypatch.setenv(BIND_TOKENS_ENV, "maybe")
    with pytest.raises(ValueError, match="true or false"):
        Receiver(tokens=[BOUND_TOKEN], database_url=database_url).tokens  # noqa: B018
    monkeypatch.delenv(BIND_TOKENS_ENV)
    with pytest.raises(ValueError) as caught:
        Receiver(tokens=[f"acct:{TOKEN}"], database_url=database_url).tokens  # noqa: B018
    assert TOKEN not in str(caught.value)


async def _post_asgi(app: Any, path: str, body: Any) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://airflow") as client:
        return await client.post(path, json=body)


def test_the_plugin_answers_503_when_the_store_cannot_be_opened(tmp_path, monkeypatch, caplog):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the store's directory should be")
    monkeypatch.setenv(TOKENS_ENV, BOUND_TOKEN)
    api = FastAPI()
    api.mount("/messaging-platform", LazyReceiverApp(database_url=f"sqlite:///{blocker}/sub/callbacks.db"))
    response = asyncio.run(_post_asgi(api, "/messaging-platform/callbacks", callback(1)))
    assert response.status_code == 503
    assert "Traceback" not in caplog.text and TOKEN not in caplog.text + response.text


def test_a_trailing_slash_is_served_as_the_same_route_without_a_redirect(receiver, store):
    response = httpx.post(receiver.url + "/", json=callback(1), headers={"Host": "evil.example"}, timeout=10)
    assert response.status_code == 200 and "location" not in response.headers
    assert response.json()["status"] == "stored"
    assert store.count() == 1
    assert httpx.post(receiver.url + "//", json=callback(1), timeout=10).status_code == 404
