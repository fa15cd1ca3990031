"""
The system test's log readers, on log lines shaped as the deployment writes them (no deployment started): what a
failing scenario prints is all that is left of a CI run, so it must name the cause.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tests.integration.system.system_scenarios import error_summary
from tests.integration.system.system_scenarios_logs import BLOCKED_WARNING, triggers_started_before
from tests.integration.system.system_scenarios_platform import committed_creates


def test_a_blocked_warning_names_the_triggers_that_started_shortly_before_it(tmp_path: Path) -> None:
    triggerer_log = tmp_path / "triggerer.log"
    triggerer_log.write_text(
        "\n===== start 2 of triggerer =====\n"
        "2026-11-26T15:41:40.100000Z [info     ] trigger ID 1 starting          [airflow.jobs.triggerer_job_runner]\n"
        f"2026-11-26T15:42:04.721291Z [info     ] {BLOCKED_WARNING} for 1.72 seconds, exceeding the threshold\n"
        "2026-11-26T15:42:06.236006Z [info     ] trigger ID 3 starting          [airflow.jobs.triggerer_job_runner]\n"
    )
    task_log = tmp_path / "dag_id=voice" / "attempt=1.log.trigger.4.log"
    task_log.parent.mkdir()
    task_log.write_text(
        json.dumps({"timestamp": "2026-11-26T15:41:58.433241Z", "event": "trigger voice/run/wait/-1/1 (ID 2) starting"})
        + "\n"
        + json.dumps({"timestamp": "2026-11-26T15:42:06.566429Z", "event": "Trigger fired event"})
        + "\n"
    )
    deployment = SimpleNamespace(
        triggerers=lambda: [SimpleNamespace(log=triggerer_log)], airflow_logs=lambda: [task_log]
    )
    warning = next(line for line in triggerer_log.read_text().splitlines() if BLOCKED_WARNING in line)
    # ID 1 started 24.6 s before the warning, ID 3 after it: only ID 2 was starting or running within 15 s.
    assert triggers_started_before(deployment, warning) == (  # type: ignore[arg-type]
        "triggers started in the 15 s before it: ['15:41:58.433 trigger voice/run/wait/-1/1 (ID 2)']"
    )


def test_a_json_error_line_is_summed_up_as_its_event_and_exception() -> None:
    line = json.dumps(
        {
            "timestamp": "2026-11-26T15:37:16.2Z",
            "level": "error",
            "event": "Task failed with exception",
            "error_detail": [
                {"exc_type": "MessagingPlatformApiError", "exc_value": "503 from GET /schedule/7", "frames": []}
            ],
        }
    )
    assert error_summary(line) == "Task failed with exception: MessagingPlatformApiError: 503 from GET /schedule/7"
    assert error_summary("plain Error: as written") == "plain Error: as written"


def test_a_create_the_platform_carried_out_twice_is_a_duplicate_but_a_resent_keyword_attachment_is_not() -> None:
    """Scenario 5's duplicate count: a keyword attachment carried out, its answer lost, and resent by the client
    leaves the same state; it was once counted as a duplicate create (CeleryExecutor run, 2026-11-27)."""
    attach = "/api/v2.1/account/1001/channel/22/keyword/8001/campaign"
    campaign = "/api/v2.1/account/1001/campaign"
    records: list[dict[str, Any]] = [
        {"method": "POST", "path": attach, "json": 3004, "status": None, "fault": "commit_then_drop"},
        {"method": "POST", "path": attach, "json": 3004, "status": 200, "fault": None},
        {"method": "POST", "path": campaign, "json": {"Name": "A"}, "status": None, "fault": "commit_then_drop"},
        {"method": "POST", "path": campaign, "json": {"Name": "A"}, "status": 201, "fault": None},
        {"method": "POST", "path": campaign, "json": {"Name": "B"}, "status": 503, "fault": "status"},
    ]
    assert committed_creates(records) == {f'{campaign} {{"Name": "A"}}': 2}
