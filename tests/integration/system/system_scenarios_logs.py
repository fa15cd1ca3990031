"""
Scenario 10 of the system test: the two warnings Airflow logged about our connections on every read are gone from
every log of the deployment (the components' and the tasks').

- "Connection schemes (type: ...) shall not contain '_' according to RFC3986": the API server (every connection a
  task reads through the execution API) and the triggerer wrote a connection as a URI and warned about the ``_`` of
  ``messaging_platform``, 100 to 120 times a run. The type is ``messagingplatform`` now.
- "Skipping masking for a secret as it's too short (<5 chars)": an extra that is text shorter than five characters,
  such as an account id given as a URI's query value. The deployment's connections hold it as a number.

Like scenarios 8 and 9 it looks at everything that ran before it: it runs last.
"""

from __future__ import annotations

from tests.integration.system.system_deployment import Deployment
from tests.integration.system.system_scenarios import redact, scenario

WARNINGS = {
    "scheme": "shall not contain '_' according to RFC3986",
    "short secret": "Skipping masking for a secret as it's too short",
}


@scenario("10 no connection warning in any log: a '_' in the connection type, a short secret")
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
