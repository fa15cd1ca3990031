"""
Scenarios 9, 10 and 11 of the system test: what the deployment wrote while the scenarios before them ran. They look
at everything that ran before them, so their numbers keep them last.

- 9: no secret in any log file or database dump (with the CeleryExecutor also its result backend's database and
  Redis, where the workers' messages pass).
- 10: no "Triggerer's async thread was blocked" warning in any triggerer's log.
- 11: the two warnings Airflow logged about our connections on every read are gone from every log of the
  deployment (the components' and the tasks'):

  - "Connection schemes (type: ...) shall not contain '_' according to RFC3986": the API server (every connection
    a task reads through the execution API) and the triggerer wrote a connection as a URI and warned about the
    ``_`` of ``messaging_platform``, 100 to 120 times a run. The type is ``messagingplatform`` now.
  - "Skipping masking for a secret as it's too short (<5 chars)": an extra that is text shorter than five
    characters, such as an account id given as a URI's query value. The deployment's connections hold it as a
    number.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from tests.integration.system.system_deployment import BLOCKED_THRESHOLD_SECONDS, Deployment
from tests.integration.system.system_scenarios import known_secrets, redact, scenario

BLOCKED_WARNING = "Triggerer's async thread was blocked"
WARNINGS = {
    "scheme": "shall not contain '_' according to RFC3986",
    "short secret": "Skipping masking for a secret as it's too short",
}


@scenario("9 no secret in any log, the metadata DB, XCom or the callback store")
def no_secret_leaks(d: Deployment) -> str:
    secrets = known_secrets(d)
    assert d.pg is not None
    blobs: dict[str, bytes] = {
        "metadata DB dump": d.dump_database(d.metadata_url, "metadata"),
        "callback store dump": d.dump_database(d.store_url, "callback-store"),
    }
    # XCom is in the metadata DB dump too; read on its own, each value as the JSON text Airflow stored.
    xcom = [str(row[0]) for row in d.store_rows("SELECT value::text FROM xcom", url=d.metadata_url)]
    assert xcom, "no XCom value in the metadata DB: the scenarios before this one push some"
    blobs["XCom values"] = "\n".join(xcom).encode()
    if d.celery is not None:
        blobs.update(d.celery.dumps(d.dump_database))
    files = [*d.component_logs(), *d.airflow_logs(), d.pg.log]
    files += [p for p in (d.run_dir / "emulator").iterdir() if p.suffix != ".uri"]  # the .uri file holds it by design
    for path in files:
        if path.is_file():
            blobs[str(path.relative_to(d.run_dir) if d.run_dir in path.parents else path)] = path.read_bytes()
    leaks = sorted({name for name, blob in blobs.items() for s in secrets if s.encode() in blob})
    size = sum(len(b) for b in blobs.values())
    figures = f"{len(secrets)} secrets in {len(blobs)} files and dumps ({size / 1e6:.1f} MB, {len(xcom)} XCom values)"
    assert not leaks, f"{figures}: found in {leaks}"
    return figures + ": none found"


@scenario("10 the triggerer's event loop is never blocked by our triggers")
def triggerer_never_blocked(d: Deployment) -> str:
    """No "blocked" warning at the deployment's threshold (``BLOCKED_THRESHOLD_SECONDS``), generous for load."""
    lines = [
        f"{triggerer.name}: {line}"
        for triggerer in d.triggerers()
        for line in triggerer.log.read_text(errors="replace").splitlines()
        if BLOCKED_WARNING in line
    ]
    figures = (
        f"{len(lines)} '{BLOCKED_WARNING}' warning(s) over {BLOCKED_THRESHOLD_SECONDS:g} s in "
        f"{sum(triggerer.starts for triggerer in d.triggerers())} triggerer run(s)"
    )
    if lines:
        started = triggers_started_before(d, lines[0].split(": ", 1)[1])
        raise AssertionError(f"{figures}; first: {redact(d, lines[0])[:300]}; {started}")
    return figures


def triggers_started_before(d: Deployment, warning: str, seconds: float = 15.0) -> str:
    """
    The triggers that started in the ``seconds`` before a blocked warning was logged, to tell whose code was
    running. A trigger of a task logs its start in that task's trigger log, not in the triggerer's.
    """
    try:
        ended = datetime.fromisoformat(warning.split(" ", 1)[0].rstrip("Z"))
    except ValueError:  # a line of another shape: leave the assertion's own message alone
        return "the warning's time could not be read"
    starts = []
    triggerer_logs = [triggerer.log for triggerer in d.triggerers()]
    for path in [*triggerer_logs, *(p for p in d.airflow_logs() if ".log.trigger." in p.name)]:
        for line in path.read_text(errors="replace").splitlines():
            try:
                record = json.loads(line)
                stamp, event = str(record["timestamp"]), str(record["event"])
            except (ValueError, KeyError, TypeError):
                stamp, _, rest = line.partition(" ")
                event = rest.partition("] ")[2]
            if event.startswith("trigger ") and " starting" in event and stamp[:4].isdigit():
                at = datetime.fromisoformat(stamp.rstrip("Z"))
                if timedelta(0) <= ended - at <= timedelta(seconds=seconds):
                    starts.append(f"{stamp[11:23]} {event.split(' starting')[0]}")
    return f"triggers started in the {seconds:g} s before it: {sorted(starts) or 'none'}"


@scenario("11 no connection warning in any log: a '_' in the connection type, a short secret")
def no_connection_warnings(d: Deployment) -> str:
    files = [*d.component_logs(), *d.airflow_logs()]
    counts = dict.fromkeys(WARNINGS, 0)
    first: dict[str, str] = {}
    for path in files:
        for line in path.read_text(errors="replace").splitlines():
            for name, text in WARNINGS.items():
                if text in line:
                    counts[name] += 1
                    first.setdefault(name, f"{path.relative_to(d.run_dir)}: {redact(d, line)[:300]}")
    figures = ", ".join(f"{count} {name} warning(s)" for name, count in counts.items()) + f" in {len(files)} logs"
    assert not any(counts.values()), f"{figures}; first: {first}"
    return figures
