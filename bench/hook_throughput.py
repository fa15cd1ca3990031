"""
Hook throughput: 2,000 sequential GETs of one campaign through ``MessagingPlatformHook`` against the emulator,
compared with a bare ``requests.Session`` making the same calls, in the same run.

The emulator runs in its own process (so it does not share this process's GIL); the two clients take turns in
blocks of 250 calls to even out drift. Prints both rates and the ratio hook / bare (target: at least 0.85;
exit status 1 when missed).

    .venv/bin/python bench/hook_throughput.py [--calls 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

import requests

from messaging_platform_emulator.connection import uri_extras
from messaging_platform_emulator.process import spawn as spawn_emulator, stop as stop_emulator
from messaging_platform_provider.hooks.names import CONN_TYPE

#: The hook keeps at least this share of a bare ``requests.Session``'s rate; the exit status is 1 below it.
TARGET_RATIO = 0.85


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--block", type=int, default=250)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    os.environ["AIRFLOW_HOME"] = str(folder)
    emulator, uri = spawn_emulator(folder)
    try:
        parts = urlsplit(uri)
        extra = uri_extras(uri)  # account_id a number: a text one makes Airflow's masker warn
        key, secret = unquote(parts.username or ""), unquote(parts.password or "")
        os.environ["AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT"] = json.dumps(
            {"conn_type": CONN_TYPE, "login": key, "password": secret, "extra": extra}
        )
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        hook = MessagingPlatformHook()
        campaign = hook.create_campaign(name="Bench", campaign_type="Basic")
        url = f"{extra['base_url']}/account/{extra['account_id']}/campaign/{campaign['Id']}"
        bare = requests.Session()
        bare.auth = (key, secret)
        bare.headers.update({"Accept": "application/json", "Content-Type": "application/json"})

        def run_hook(n: int) -> float:
            started = time.perf_counter()
            for _ in range(n):
                hook.get_campaign(campaign["Id"])
            return time.perf_counter() - started

        def run_bare(n: int) -> float:
            started = time.perf_counter()
            for _ in range(n):
                response = bare.get(url, timeout=(10, 60))
                response.raise_for_status()
                response.json()
            return time.perf_counter() - started

        run_hook(50), run_bare(50)  # warm both connections
        hook_s = bare_s = 0.0
        done = 0
        while done < args.calls:
            n = min(args.block, args.calls - done)
            hook_s += run_hook(n)
            bare_s += run_bare(n)
            done += n
        hook_rate, bare_rate = args.calls / hook_s, args.calls / bare_s
        print(f"calls each: {args.calls} sequential GET /campaign/{{id}}")
        print(f"bare requests.Session: {bare_rate:8.1f} calls/s  ({bare_s:.2f} s)")
        print(f"MessagingPlatformHook: {hook_rate:8.1f} calls/s  ({hook_s:.2f} s)")
        ratio = hook_rate / bare_rate
        met = ratio >= TARGET_RATIO
        print(f"ratio hook/bare: {ratio:.3f} (target >= {TARGET_RATIO}): {'met' if met else 'MISSED'}")
        return 0 if met else 1
    finally:
        stop_emulator(emulator)
        shutil.rmtree(folder, ignore_errors=True)  # the emulator's log and its connection file (the secret)


if __name__ == "__main__":
    sys.exit(main())
