"""
Keep an external coupon list in step with a CSV file, sending only the difference.

The list is found by name (created if missing, retry-safe). Its current codes are read from the platform; codes in
``data/coupon_codes.csv`` but not on the list are added with one update, codes on the list but no longer in the
file are deleted with one DELETE each, many at once (``hook.call_many``: bounded in flight, paced by the platform's
429 answers), so 10,000 removed codes take about a minute at a limit of 200 calls a second instead of nine one after
another. A code that could not be deleted fails the task once the others are done. A second run sends nothing but
reads.

Params:

- ``list_name``: the name of the external coupon list to keep in step (default ``Synced coupon codes``). The
  DAG creates the list on the first run and keeps it; it never deletes a list.

Uses ``messaging_platform_default``.
"""

from __future__ import annotations

import csv
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from airflow.sdk import Param, dag, task

CODES_FILE = Path(__file__).parent / "data" / "coupon_codes.csv"


@dag(
    dag_id="messaging_platform_coupon_sync",
    schedule="@hourly",
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    catchup=False,
    max_active_runs=1,
    params={"list_name": Param("Synced coupon codes", type="string")},
    tags=["messaging_platform", "example"],
    doc_md=__doc__,
)
def messaging_platform_coupon_sync() -> None:
    @task
    def sync(params: dict[str, Any] | None = None) -> dict[str, Any]:
        from messaging_platform_provider.client.operations import Operations
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        name = (params or {})["list_name"]
        with CODES_FILE.open(newline="") as handle:
            wanted = {row["CouponCodes"].strip() for row in csv.DictReader(handle) if row["CouponCodes"].strip()}
        hook = MessagingPlatformHook()
        found = [c for c in hook.list_external_coupon_lists() if c.get("Name") == name]
        if not found:
            created = hook.create_external_coupon_list(name, coupon_codes=sorted(wanted))
            return {"list_id": created["Id"], "added": len(wanted), "removed": 0}
        list_id = found[0]["Id"]
        current = {c["CouponCode"] for c in hook.list_external_coupon_codes(list_id)}
        to_add, to_remove = sorted(wanted - current), sorted(current - wanted)
        if to_add:
            hook.update_external_coupon_list(list_id, coupon_codes=to_add)
        # One DELETE per code, many at once and paced by the platform's 429s; each code's outcome in order.
        deletes = [{"coupon_list_id": list_id, "coupon_code": code} for code in to_remove]
        outcomes = hook.call_many(Operations.delete_external_coupon_code, deletes)
        failed = [(code, o.error) for code, o in zip(to_remove, outcomes, strict=True) if not o.ok]
        if failed:  # after every other code was deleted: the next run deletes only what is left
            code, error = failed[0]
            raise RuntimeError(f"{len(failed)} of {len(to_remove)} codes were not deleted; {code}: {error}")
        return {"list_id": list_id, "added": len(to_add), "removed": len(to_remove)}

    sync()


messaging_platform_coupon_sync()
