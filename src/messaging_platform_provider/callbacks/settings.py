"""
Where the callback store lives and which callback tokens the receiver accepts: one resolution rule shared by the
standalone receiver, the Airflow API server plugin, the trigger, the sensor and DAG tasks, so they all meet in the
same database without repeating its URL.

Database URL: the explicit argument, else ``$MESSAGING_PLATFORM_CALLBACKS_DATABASE_URL``, else Airflow's
``[messaging_platform_callbacks] database_url`` (only read where Airflow is already imported), else a SQLite file
``messaging_platform_callbacks.db`` in ``$AIRFLOW_HOME`` (``~/airflow`` when unset).

Tokens: the explicit ones, else ``$MESSAGING_PLATFORM_CALLBACK_TOKENS``, else Airflow's
``[messaging_platform_callbacks] tokens``; comma- or whitespace-separated. Tokens are secrets: nothing here logs
or prints them.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path

DATABASE_URL_ENV = "MESSAGING_PLATFORM_CALLBACKS_DATABASE_URL"
TOKENS_ENV = "MESSAGING_PLATFORM_CALLBACK_TOKENS"
CONF_SECTION = "messaging_platform_callbacks"
DEFAULT_DB_FILE = "messaging_platform_callbacks.db"


def _airflow_conf(key: str) -> str | None:
    """Airflow's config value, only when Airflow is already imported (the CLI stays Airflow-free)."""
    if "airflow" not in sys.modules:
        return None
    try:
        from airflow.sdk import conf

        value = conf.get(CONF_SECTION, key, fallback=None)
    except Exception:  # a receiver must start even when Airflow's config cannot be read
        return None
    return str(value) if value else None


def default_database_url() -> str:
    home = os.environ.get("AIRFLOW_HOME") or str(Path("~/airflow").expanduser())
    return f"sqlite:///{Path(home) / DEFAULT_DB_FILE}"


def resolve_database_url(explicit: str | None = None) -> str:
    return explicit or os.environ.get(DATABASE_URL_ENV) or _airflow_conf("database_url") or default_database_url()


def split_tokens(text: str | None) -> list[str]:
    return [t for t in re.split(r"[\s,]+", text or "") if t]


def resolve_tokens(explicit: Iterable[str] | None = None) -> list[str]:
    tokens = [t for t in (explicit or ()) if t]
    if tokens:
        return tokens
    return split_tokens(os.environ.get(TOKENS_ENV)) or split_tokens(_airflow_conf("tokens"))


def redact_url(url: str) -> str:
    """A database URL with its password hidden, for messages."""
    return re.sub(r"(//[^:/@]+:)[^@]*@", r"\1***@", url)
