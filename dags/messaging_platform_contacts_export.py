"""
Export every contact of the account to storage, a few pages in memory at a time.

The contacts are read page by page (``$top``/``$skip``), four pages ahead of the writing so that no round trip is
waited for between pages (``hook.stream_contacts``), and written as JSON Lines (or CSV) to an
``ObjectStoragePath``: a local folder by default, any fsspec URL (``s3://``, ``gs://``, ...) with its Airflow
connection works the same. The task's XCom is the row count and the file's URL, never the contacts themselves.

Params (defaults suit a daily run; change them in the trigger form or with ``--conf``):

- ``destination``: the folder to write to, a URL (default ``file:///tmp/messaging-platform-exports``). The file is
  named after the run: ``contacts-<run id>.<format>``.
- ``format``: ``jsonl`` (default) or ``csv``.
- ``page_size``: contacts read per request (default 500).

Reads the connection's account; creates nothing on it. Uses ``messaging_platform_default``.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from airflow.sdk import Param, dag, task

FIELDS = ("Id", "PhoneNumber", "Email", "StatusId", "Created", "Modified")


@dag(
    dag_id="messaging_platform_contacts_export",
    schedule="@daily",
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    catchup=False,
    params={
        "destination": Param("file:///tmp/messaging-platform-exports", type="string"),
        "format": Param("jsonl", enum=["jsonl", "csv"]),
        "page_size": Param(500, type="integer", minimum=1),
    },
    tags=["messaging_platform", "example"],
    doc_md=__doc__,
)
def messaging_platform_contacts_export() -> None:
    @task
    def export(params: dict[str, Any] | None = None, run_id: str | None = None) -> dict[str, Any]:
        import csv
        import json
        import re

        from airflow.sdk import ObjectStoragePath

        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        params = params or {}
        folder = ObjectStoragePath(params["destination"])
        folder.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", str(run_id))
        target = folder / f"contacts-{name}.{params['format']}"
        rows = 0
        with target.open("w", newline="") as out:
            writer = (
                csv.DictWriter(out, fieldnames=FIELDS, extrasaction="ignore") if params["format"] == "csv" else None
            )
            if writer:
                writer.writeheader()
            # Pages are read ahead (``lookahead`` on the wire while this loop writes), at most 2 x lookahead + 1 held.
            contacts = MessagingPlatformHook().stream_contacts(page_size=int(params["page_size"]), lookahead=4)
            for contact in contacts:
                if writer:
                    writer.writerow(contact)
                else:
                    out.write(json.dumps(contact, separators=(",", ":")) + "\n")
                rows += 1
        return {"rows": rows, "path": str(target)}

    export()


messaging_platform_contacts_export()
