"""
Property-based tests (Hypothesis) of the receiver over real HTTP on loopback: whatever the body, the answer is one
of 200, 401, 413 or 422 (never 500, never 503 while the store is up), every acknowledged TransactionId is in the
store exactly once, over SQLite and PostgreSQL, and every callback answered 200 can be carried by every consumer:
the triggerer's messages, Airflow's serializers and PostgreSQL JSONB. Budget: the ``default`` profile (50 examples
per test); ``HYPOTHESIS_PROFILE=long`` for a soak (see docs/reliability.md).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from messaging_platform_provider.callbacks.receiver import Receiver
from messaging_platform_provider.callbacks.server import ReceiverServer
from messaging_platform_provider.callbacks.store import CallbackStore
from tests.support.callback_helpers import BOUND_TOKEN, FIELDS, TOKEN, callback
from tests.support.carriage import carry_everywhere

ANSWERS = {200, 401, 413, 422}
MAX_BODY = 8192

text = st.text(st.characters(exclude_categories=()), max_size=300)  # surrogates and NUL included
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    text,
)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4), max_leaves=30
)
deep = st.integers(min_value=1, max_value=120).map(lambda n: json.loads("[" * n + "]" * n))
any_value = st.one_of(json_values, deep)
FIELD_NAMES = sorted(
    {"AccountId", "CallbackTimestamp", "CallbackType", "CallbackURL", "TransactionId", "Campaign"}
    | {name for fields in FIELDS.values() for name in fields}
    | {"Name", "AccountName", "ParentId", "ContactAccountId", "ContactAccountName", "SomethingNew"}
)
relaxed = settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


class Harness:
    def __init__(self, server: ReceiverServer, store: CallbackStore) -> None:
        self.server = server
        self.store = store
        self.client = httpx.Client(timeout=30)
        self.acknowledged: set[str] = set()

    def post(self, content: bytes) -> httpx.Response:
        response = self.client.post(self.server.url, content=content, headers={"Content-Type": "application/json"})
        assert response.status_code in ANSWERS, (response.status_code, response.text[:500])
        assert TOKEN not in response.text
        if response.status_code == 200:
            self.acknowledged.add(response.json()["TransactionId"])
        return response

    def check_store(self) -> None:
        counts = Counter(self.store.transaction_ids())
        assert all(n == 1 for n in counts.values())
        assert self.acknowledged <= set(counts)


@pytest.fixture
def harness(any_database_url) -> Iterator[Harness]:
    url = any_database_url
    # binding off, so that arbitrary AccountIds reach validation and the store instead of stopping at 401
    receiver = Receiver(tokens=[BOUND_TOKEN], database_url=url, bind_tokens=False, max_body_bytes=MAX_BODY)
    store = CallbackStore(url)
    with ReceiverServer(receiver=receiver) as server:
        h = Harness(server, store)
        try:
            yield h
            h.check_store()
        finally:
            h.client.close()
            store.close()


@relaxed
@given(body=st.binary(max_size=MAX_BODY + 100))
def test_arbitrary_bytes_are_answered_without_a_server_error(harness, body):
    harness.post(body)


@relaxed
@given(body=any_value, with_token=st.booleans())
def test_arbitrary_json_is_answered_without_a_server_error(harness, body, with_token):
    if with_token and isinstance(body, dict):
        body["CallbackToken"] = TOKEN
    harness.post(json.dumps(body).encode())
    harness.check_store()


@relaxed
@given(
    callback_type=st.sampled_from([1, 3, 6, 8, 11]),
    changes=st.dictionaries(st.sampled_from(FIELD_NAMES), any_value, max_size=4),
    removed=st.sets(st.sampled_from(FIELD_NAMES), max_size=2),
    resend=st.booleans(),
)
def test_arbitrary_field_values_of_every_type_are_stored_once_or_refused(
    harness, callback_type, changes, removed, resend
):
    body: dict[str, Any] = callback(callback_type, **changes)
    for name in removed:
        body.pop(name, None)
    content = json.dumps(body).encode()
    first = harness.post(content)
    if resend:
        again = harness.post(content)
        assert again.status_code == first.status_code
        if first.status_code == 200:
            assert again.json()["status"] == "duplicate"
    harness.check_store()


@pytest.fixture
def bound_server(tmp_path) -> Iterator[ReceiverServer]:
    receiver = Receiver(tokens=[BOUND_TOKEN], database_url=f"sqlite:///{tmp_path / 'bound.db'}")
    with ReceiverServer(receiver=receiver) as server:
        yield server


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    """One client for all of a property's examples: each new one loads the CA bundle (40 ms of CPU)."""
    with httpx.Client(timeout=30) as client:
        yield client


@relaxed
@given(account_id=st.integers(min_value=-(2**66), max_value=2**66), token=st.sampled_from([TOKEN, "other"]))
def test_with_bound_tokens_only_the_accounts_own_token_is_accepted(bound_server, http, account_id, token):
    body = callback(6, AccountId=account_id, CallbackToken=token)
    status = http.post(bound_server.url, content=json.dumps(body).encode()).status_code
    if token == TOKEN and account_id == 1001:
        assert status == 200
    elif token == TOKEN and not -(2**63) <= account_id < 2**63:
        assert status == 422  # the store cannot hold it, whoever sends it
    else:
        assert status == 401


#: Values at the edges of what the consumers carry: integers around 64 bits, NUL, names Airflow's serializers own.
edges = st.one_of(
    st.sampled_from([2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, str(2**64), "\x00", "a\x00b"]),
    st.dictionaries(
        st.sampled_from(["__classname__", "__type", "__var", "__data__", "_ok", "Ok"]), scalars, max_size=3
    ),
    text,
)
hostile = st.recursive(edges, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3))


@pytest.fixture
def jsonb(postgres_server) -> Iterator[Any]:
    from sqlalchemy import create_engine

    engine = create_engine(postgres_server.admin_url())
    yield engine
    engine.dispose()


@relaxed
@given(
    callback_type=st.sampled_from([1, 3, 6, 8, 11]),
    changes=st.dictionaries(st.sampled_from(FIELD_NAMES), hostile, min_size=1, max_size=4),
)
def test_every_callback_answered_200_is_carried_by_every_consumer(harness, jsonb, callback_type, changes):
    """A 200 means stored *and* carriable: a triggerer died on an integer beyond 64 bits, PostgreSQL on a NUL."""
    body = callback(callback_type, **changes)
    response = harness.post(json.dumps(body).encode())
    if response.status_code == 200:
        (row,) = [r for r in harness.store.read_after(0, limit=10_000) if r.transaction_id == body["TransactionId"]]
        carry_everywhere(row.to_event(), jsonb)
