"""
Links to the platform's web app (``operators/links.py``) as Airflow makes and shows them. The test DAG
``messaging_platform_test_extra_links`` runs under ``dag.test()`` against the emulator twice: on a connection that
gives the web app's URL templates, and on one that does not. Each run's link XComs are read back, and so is what
Airflow's UI shows: the link as the serialized DAG gives it, the API server's own path.
"""

from __future__ import annotations

import logging
import re
import threading
from types import SimpleNamespace
from typing import Any

import pytest

from tests.support.airflow_versions import as_serialized, dag_bag, providers_listing
from tests.support.paths import TEST_DAGS
from tests.support.platform import module_platform
from tests.support.waiting import SOON, Lifecycle, parked_by_default

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("dag_runs")]

DAG_ID = "messaging_platform_test_extra_links"
LINKED_CONN = "messaging_platform_links"
WEB_APP = "https://app.example.com/accounts/{account_id}"
TEMPLATES = {
    "web_app_campaign_url": WEB_APP + "/campaigns/{campaign_id}",
    "web_app_schedule_url": WEB_APP + "/actions/{action_id}/schedules/{schedule_id}",
    "web_app_push_voice_call_url": WEB_APP + "/voice-calls/{action_id}?tab=calls",
}
#: each task's link, by the link's XCom key (Airflow's default, ``_link_<class name>``) and its name in the UI
LINK_OF_TASK = {
    "campaign": ("_link_MessagingPlatformCampaignLink", "Campaign in web app"),
    "mapped_campaigns": ("_link_MessagingPlatformCampaignLink", "Campaign in web app"),
    "schedule": ("_link_MessagingPlatformScheduleLink", "Schedule in web app"),
    "voice_call": ("_link_MessagingPlatformPushVoiceCallLink", "Push voice call in web app"),
    "voice_call_deferred": ("_link_MessagingPlatformPushVoiceCallLink", "Push voice call in web app"),
}
EVERY_INSTANCE = [
    ("campaign", -1),
    ("mapped_campaigns", 0),
    ("mapped_campaigns", 1),
    ("schedule", -1),
    ("voice_call", -1),
    ("voice_call_deferred", -1),
]
SCHEDULE_READ = re.compile(r"/action/\d+/schedule/(\d+)$")


class MovedOnOnceRead:
    """
    Moves each schedule on once a GET of it has been answered: schedules are parked (Pending) until then, so the
    deferrable create-and-wait reads Pending in the worker, must defer, and its trigger sees the schedule end.
    """

    def __init__(self, platform: Any) -> None:
        self.control = platform.control
        self.moved: set[str] = set()
        self.since = 0
        self.errors: list[BaseException] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="moved-on-once-read", daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                for record in self.control.requests(since=self.since):
                    if record["status"] is None:
                        break  # still being answered: read it again next round
                    self.since = record["seq"]
                    found = SCHEDULE_READ.search(record["path"])
                    if record["method"] == "GET" and found and found.group(1) not in self.moved:
                        self.moved.add(found.group(1))
                        self.control.set_one_schedule_behaviour(int(found.group(1)), **SOON)
            except BaseException as exc:  # reported by __exit__, in the test's thread
                self.errors.append(exc)
                return
            self._stop.wait(0.02)

    def __enter__(self) -> MovedOnOnceRead:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._stop.set()
        self._thread.join(10)
        if self.errors:
            raise self.errors[0]


def run_and_read(platform: Any, conn_id: str, dag_id: str = DAG_ID) -> SimpleNamespace:
    """Run a DAG on ``conn_id``; per (task id, map index): its state, return value, link XCom and UI link."""
    from airflow.models.xcom import XComModel
    from airflow.utils.session import create_session

    dag = dag_bag(str(TEST_DAGS)).get_dag(dag_id)
    assert dag is not None
    with MovedOnOnceRead(platform) as mover:
        run = dag.test(run_conf={"conn_id": conn_id, "schedule_action": 5001})
    tis = run.get_task_instances()
    with create_session() as session:
        rows = session.execute(XComModel.get_many(run_id=run.run_id, dag_ids=dag_id)).scalars()
        xcoms = {(row.task_id, row.map_index, row.key): XComModel.deserialize_value(row) for row in rows}
    serialized = as_serialized(dag)
    tasks = {}
    for ti in tis:
        key, name = LINK_OF_TASK[ti.task_id]
        tasks[(ti.task_id, ti.map_index)] = SimpleNamespace(
            state=ti.state,
            answer=xcoms.get((ti.task_id, ti.map_index, "return_value")),
            link=xcoms.get((ti.task_id, ti.map_index, key), "<no XCom>"),
            shown=serialized.get_task(ti.task_id).get_extra_links(ti, name),
        )
    return SimpleNamespace(tasks=tasks, moved=mover.moved)


@pytest.fixture(scope="module")
def linked(emulator_server, dag_runs) -> SimpleNamespace:
    """The run on a connection with the three URL templates."""
    with module_platform(emulator_server) as platform, pytest.MonkeyPatch.context() as patch:
        patch.setenv(f"AIRFLOW_CONN_{LINKED_CONN.upper()}", platform.connection_json(extra=TEMPLATES))
        with parked_by_default(Lifecycle(platform)):
            return run_and_read(platform, LINKED_CONN)


def expected_link(task_id: str, answer: dict[str, Any]) -> str:
    created = answer["Id"]
    return {
        "campaign": f"https://app.example.com/accounts/1001/campaigns/{created}",
        "mapped_campaigns": f"https://app.example.com/accounts/1001/campaigns/{created}",
        "schedule": f"https://app.example.com/accounts/1001/actions/5001/schedules/{created}",
        "voice_call": f"https://app.example.com/accounts/1001/voice-calls/{created}?tab=calls",
        "voice_call_deferred": f"https://app.example.com/accounts/1001/voice-calls/{created}?tab=calls",
    }[task_id]


def test_every_task_succeeded(linked):
    assert {key: task.state for key, task in linked.tasks.items()} == {key: "success" for key in EVERY_INSTANCE}


@pytest.mark.parametrize("key", EVERY_INSTANCE[:-1], ids=lambda key: f"{key[0]}[{key[1]}]")
def test_with_the_extra_the_link_xcom_is_the_page_of_what_the_task_created(linked, key):
    task = linked.tasks[key]
    assert task.link == expected_link(key[0], task.answer)
    assert task.shown == task.link  # what the UI shows


def test_mapped_instances_each_link_to_their_own_campaign(linked):
    links = {linked.tasks[("mapped_campaigns", index)].link for index in (0, 1)}
    assert len(links) == 2


def test_a_deferred_create_and_wait_links_to_its_call_once_it_resumes(linked):
    task = linked.tasks[("voice_call_deferred", -1)]
    (schedule,) = task.answer["Schedules"]
    assert schedule["ProcessStatus"] == "Completed"
    # It deferred: its schedule stayed Pending until its first read, made in the worker before deferring, so only
    # the trigger could have seen it end.
    assert str(schedule["Id"]) in linked.moved
    assert task.link == expected_link("voice_call_deferred", task.answer)
    assert task.shown == task.link


#: templates that cannot give a link; the schedule's extra is not set
BAD_TEMPLATES = {
    "web_app_campaign_url": "https://app.example.com/private-9/campaigns/{campaign_id",
    "web_app_push_voice_call_url": "https://user-9:secret-9@app.example.com/voice-calls/{action_id}",
}


def test_without_a_usable_extra_no_task_has_a_link(platform, dag_runs, caplog, monkeypatch):
    """
    On a connection whose templates cannot give a link, or that has none: every task created its resource, and its
    link is empty, which the UI shows as no button. A bad template is only warned about, naming the extra and not
    its value.
    """
    monkeypatch.setenv(f"AIRFLOW_CONN_{LINKED_CONN.upper()}", platform.connection_json(extra=BAD_TEMPLATES))
    with parked_by_default(Lifecycle(platform)), caplog.at_level(logging.WARNING):
        unlinked = run_and_read(platform, LINKED_CONN)
    for key in EVERY_INSTANCE:
        task = unlinked.tasks[key]
        assert (task.state, bool(task.answer["Id"])) == ("success", True), key
        assert task.link == "", key
        assert not task.shown, key
    logged = caplog.text
    assert "web_app_campaign_url: has a brace that opens or closes no placeholder" in logged
    assert "web_app_push_voice_call_url: must not carry credentials" in logged
    assert "private-9" not in logged and "secret-9" not in logged


def test_a_deferring_task_asks_for_no_xcom_it_has_not_pushed(platform, dag_runs, capfd, monkeypatch):
    """
    Airflow asks for the link when the task defers too, before the task has pushed its ``Id``: asking for a missing
    XCom then would make Airflow log "XCom not found" as an error in every deferring task.
    """
    monkeypatch.setenv(f"AIRFLOW_CONN_{LINKED_CONN.upper()}", platform.connection_json(extra=TEMPLATES))
    capfd.readouterr()
    with parked_by_default(Lifecycle(platform)):
        run = run_and_read(platform, LINKED_CONN, "messaging_platform_test_extra_links_deferred")
    output = capfd.readouterr()
    task = run.tasks[("voice_call_deferred", -1)]
    assert task.link == expected_link("voice_call_deferred", task.answer)
    assert run.moved  # it deferred: its schedule was still Pending when the worker read it
    assert "XCom not found" not in output.out + output.err


def test_no_link_carries_the_api_key_or_its_secret(linked, platform):
    secrets = (platform.seed.api_key, platform.seed.api_secret)
    for task in linked.tasks.values():
        assert not any(secret in task.link for secret in secrets)


def test_airflow_providers_links_lists_ours(tmp_path):
    """``airflow providers links``, as a user runs it, in an Airflow home of its own."""
    listed = providers_listing("links", tmp_path)
    assert {
        "messaging_platform_provider.operators.links.MessagingPlatformCampaignLink",
        "messaging_platform_provider.operators.links.MessagingPlatformPushVoiceCallLink",
        "messaging_platform_provider.operators.links.MessagingPlatformScheduleLink",
    } <= listed
