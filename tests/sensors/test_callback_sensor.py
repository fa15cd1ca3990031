"""``MessagingPlatformCallbackSensor``: the Dialog answer of one phone number, poke and deferrable, fed end to end
by the emulator (dialog event → callback POST → receiver → store)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace
from typing import Any

import pytest

from messaging_platform_emulator.control_client import EmulatorControl
from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.sensors.callback import MessagingPlatformCallbackSensor
from messaging_platform_provider.version_compat import AirflowFailException, AirflowSensorTimeout, TaskDeferred
from tests.support.callback_helpers import add_callback_record, callback, post, until, wait_until

PHONE = "+15550100007"


def context(started: datetime | None = None) -> dict[str, Any]:
    start = started or datetime.now(timezone.utc)
    return {
        "dag_run": SimpleNamespace(start_date=start),
        "ti": SimpleNamespace(dag_id="d", task_id="wait", run_id="r", map_index=-1, try_number=1),
    }


def sensor(**kwargs: Any) -> MessagingPlatformCallbackSensor:
    values: dict[str, Any] = {"callback_type": "Dialog", "phone_number": PHONE, "poke_interval": 0.05, "timeout": 20}
    values.update(kwargs)
    return MessagingPlatformCallbackSensor(task_id="wait", **values)


def answer(platform, phone: str, value: Any) -> None:
    """A contact answers the dialog; returns once the emulator has delivered the callback (the receiver stored it)."""
    with EmulatorControl(platform.server.url, timeout=30) as control:  # it answers once the callback is delivered
        fired = control.dialog_event(value, phone_number=phone, question_text="Coming?", wait=True)
    assert [d["state"] for d in fired["deliveries"]] == ["delivered"]


def test_poke_mode_waits_for_the_answer_of_that_phone_number(platform, receiver_for, store, monkeypatch):
    receiver = receiver_for
    add_callback_record(platform, 3, receiver.url)
    op = sensor(deferrable=False, timeout=60)  # a generous deadline (and what a failed test waits for at most)
    pokes: list[bool] = []  # each finished poke: whether it found the callback
    real_poke = op.poke

    def poke(ctx: Any) -> Any:
        found = real_poke(ctx)
        pokes.append(bool(found))
        return found

    monkeypatch.setattr(op, "poke", poke)
    started = datetime.now(timezone.utc)
    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(op.execute, context(started))
        wait_until(lambda: pokes or waiting.done(), what="the sensor's first poke")
        answer(platform, "+15550100008", "No")  # another contact's answer (stored now) does not count
        stored = len(pokes)  # a poke under way may have read before it was stored; the next one reads after
        wait_until(lambda: len(pokes) >= stored + 2 or waiting.done(), what="a poke after the other answer")
        taken = waiting.result() if waiting.done() else None  # raises the sensor's error, if it failed
        assert taken is None and not any(pokes), f"the sensor took another contact's answer: {taken}"
        answer(platform, PHONE, "Yes")
        result = waiting.result(timeout=60)
    assert pokes[-1] is True
    assert result["payload"]["PhoneNumber"] == PHONE and result["payload"]["Answer"] == "Yes"
    assert result["payload"]["ContactAccountName"] == "Demo account"  # named by the spec, omitted by its shape
    assert "CallbackToken" not in result["payload"]
    assert store.count() == 2


def test_an_answer_received_before_the_run_started_is_not_taken(store):
    from messaging_platform_provider.callbacks.models import parse_callback
    from messaging_platform_provider.callbacks.store import NewCallback

    old = NewCallback.from_model(parse_callback(callback(3, PhoneNumber=PHONE)))
    store.add(old)
    later = datetime.now(timezone.utc) + timedelta(seconds=1)
    # Something that must not happen: the sensor takes the old answer. A short timeout only makes it give up
    # sooner; a slow machine makes it poke fewer times, never pass wrongly or fail.
    op = sensor(deferrable=False, timeout=0.3)
    with pytest.raises(AirflowSensorTimeout):
        op.execute(context(later))
    assert op.poke(context(later - timedelta(seconds=5)))  # the same answer, within the window


def test_deferrable_mode_takes_an_answer_already_stored_without_deferring(store):
    from messaging_platform_provider.callbacks.models import parse_callback
    from messaging_platform_provider.callbacks.store import NewCallback

    started = datetime.now(timezone.utc) - timedelta(seconds=5)
    store.add(NewCallback.from_model(parse_callback(callback(3, PhoneNumber=PHONE, Answer="Yes"))))
    result = sensor(deferrable=True, timeout=120).execute(context(started))  # a TaskDeferred would fail the test
    assert result["payload"]["PhoneNumber"] == PHONE and result["payload"]["Answer"] == "Yes"


def test_deferrable_mode_hands_the_wait_to_a_trigger_that_does_not_block(platform, receiver_for, store, monkeypatch):
    from messaging_platform_provider.triggers import callback as trigger_module

    receiver = receiver_for
    add_callback_record(platform, 3, receiver.url)
    queries: list[bool] = []  # each query the trigger made: whether it found the callback
    real_find = trigger_module.find_callback

    def find_callback(*args: Any) -> Any:
        found = real_find(*args)
        queries.append(found is not None)
        return found

    monkeypatch.setattr(trigger_module, "find_callback", find_callback)
    op = sensor(deferrable=True, timeout=120)
    ctx = context()
    with pytest.raises(TaskDeferred) as deferred:
        op.execute(ctx)
    trigger = deferred.value.trigger
    classpath, kwargs = trigger.serialize()
    rebuilt = type(trigger)(**kwargs)  # what the triggerer does with the stored trigger row
    assert kwargs["filter_kwargs"]["phone_numbers"] == [PHONE] and kwargs["filter_kwargs"]["callback_types"] == [3]

    async def wait() -> Any:
        gen = rebuilt.run()
        first = asyncio.create_task(gen.__anext__())
        # the trigger queried the store (in a thread) and found nothing, while this loop kept running
        await until(lambda: queries or first.done(), what="the trigger's first query")
        assert not first.done() and queries[0] is False
        await asyncio.to_thread(answer, platform, PHONE, True)
        event = await asyncio.wait_for(first, 60)
        await gen.aclose()
        return event

    event = asyncio.run(wait())
    assert event.payload["outcome"] == "success"
    result = op.execute_complete(ctx, event.payload)
    assert result["payload"]["Answer"] is True and result["payload"]["PhoneNumber"] == PHONE


def test_deferrable_mode_times_out_at_its_deadline(database_url, store):
    op = sensor(deferrable=True, timeout=0.3)
    with pytest.raises(TaskDeferred) as deferred:
        op.execute(context())

    async def wait() -> Any:
        gen = deferred.value.trigger.run()
        event = await asyncio.wait_for(gen.__anext__(), 30)  # its deadline is 0.3 s after the deferral
        await gen.aclose()
        return event

    event = asyncio.run(wait())
    assert event.payload["outcome"] == "timeout"
    with pytest.raises(AirflowSensorTimeout):
        op.execute_complete(context(), event.payload)


def test_a_keyword_sensor_matches_case_insensitively(store, receiver):
    assert post(receiver.url, callback(1, Keyword="Join")).status_code == 200
    op = sensor(callback_type="Keyword", phone_number=None, keyword="JOIN", account_id="1001")
    found = op.poke(context(datetime.now(timezone.utc) - timedelta(minutes=1)))
    assert found and found.xcom_value["payload"]["Keyword"] == "Join"


def test_a_phone_number_made_a_number_is_refused_naming_phone_number(database_url, store):
    """Native rendering reads "+15550100007" as 15550100007, which no stored PhoneNumber would ever match."""
    with pytest.raises(MessagingPlatformValidationError, match=r"^phone_number: got the number 15550100007 "):
        sensor(phone_number=15550100007)  # written so in the DAG file: refused when the file is parsed
    for deferrable in (False, True):
        op = sensor(phone_number="{{ params.phone }}", deferrable=deferrable)
        op.phone_number = 15550100007  # what render_template_as_native_obj=True renders "+15550100007" to
        with pytest.raises(AirflowFailException) as raised:  # ends the task without its retries, not a timeout
            op.execute(context())
        assert isinstance(raised.value.__cause__, MessagingPlatformValidationError)
        assert raised.value.__cause__.field == "phone_number" and "'{{ params.long_code }}'" in str(raised.value)
    op = sensor(account_id="{{ params.account }}")
    op.account_id = "[1001]"  # a list param, rendered as text
    with pytest.raises(AirflowFailException, match=r"^account_id: must be a positive integer, got '\[1001\]'"):
        op.execute(context())
