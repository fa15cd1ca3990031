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

Freshness: a callback whose ``CallbackTimestamp`` is older than ``max_age_seconds`` (default a day) or more than
``max_clock_skew_seconds`` (default five minutes) ahead of the receiver's clock is refused (422). The explicit
argument, else ``$MESSAGING_PLATFORM_CALLBACK_MAX_AGE_SECONDS`` /
``$MESSAGING_PLATFORM_CALLBACK_MAX_CLOCK_SKEW_SECONDS``, else Airflow's ``[messaging_platform_callbacks]
max_age_seconds`` / ``max_clock_skew_seconds``.

Each token is written ``ACCOUNT_ID:TOKEN``, binding it to the account the platform issued it for: by default a token
only authenticates callbacks whose ``AccountId`` is its account. A bare ``TOKEN`` is bound to no account and is
only accepted when binding is turned off (``$MESSAGING_PLATFORM_CALLBACK_BIND_TOKENS=false``, Airflow's
``[messaging_platform_callbacks] bind_tokens = False``, ``serve --no-bind-tokens`` or ``bind_tokens=False``); then
any configured token authenticates a callback of any account.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

DATABASE_URL_ENV = "MESSAGING_PLATFORM_CALLBACKS_DATABASE_URL"
TOKENS_ENV = "MESSAGING_PLATFORM_CALLBACK_TOKENS"
BIND_TOKENS_ENV = "MESSAGING_PLATFORM_CALLBACK_BIND_TOKENS"
MAX_AGE_ENV = "MESSAGING_PLATFORM_CALLBACK_MAX_AGE_SECONDS"
MAX_CLOCK_SKEW_ENV = "MESSAGING_PLATFORM_CALLBACK_MAX_CLOCK_SKEW_SECONDS"
DEFAULT_MAX_AGE_SECONDS = 86400.0
DEFAULT_MAX_CLOCK_SKEW_SECONDS = 300.0
CONF_SECTION = "messaging_platform_callbacks"
DEFAULT_DB_FILE = "messaging_platform_callbacks.db"


def _airflow_conf(key: str) -> str | None:
    """Airflow's config value, only when Airflow is already imported (the CLI stays Airflow-free)."""
    if "airflow" not in sys.modules:
        return None
    try:
        from messaging_platform_provider.version_compat import conf

        value = conf.get(CONF_SECTION, key, fallback=None)
    except Exception as exc:  # a receiver must start even when Airflow's config cannot be read; say so
        logging.getLogger(__name__).warning(
            "Could not read Airflow's [%s] %s (%s); using the default", CONF_SECTION, key, type(exc).__name__
        )
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


def parse_token(entry: str) -> tuple[int | None, str]:
    """``"1001:TOKEN"`` is ``(1001, "TOKEN")``; a bare ``"TOKEN"`` is ``(None, "TOKEN")``. The token is never quoted."""
    account, sep, token = entry.partition(":")
    if not sep:
        return None, entry
    account = account.strip()
    if not account.lstrip("-").isdigit():
        raise ValueError("a callback token entry must be TOKEN or ACCOUNT_ID:TOKEN (the account id is not a number)")
    return int(account), token


def _truth(text: str) -> bool:
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{BIND_TOKENS_ENV} / bind_tokens must be true or false")


def resolve_bind_tokens(explicit: bool | None = None) -> bool:
    """Whether a token only authenticates its own account's callbacks (default: yes)."""
    if explicit is not None:
        return explicit
    text = os.environ.get(BIND_TOKENS_ENV) or _airflow_conf("bind_tokens")
    return _truth(text) if text else True


def _seconds(explicit: float | None, env: str, conf_key: str, default: float) -> float:
    if explicit is not None:
        value: float | str = explicit
    else:
        value = os.environ.get(env) or _airflow_conf(conf_key) or default
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise ValueError(f"{env} / [{CONF_SECTION}] {conf_key} must be a positive number of seconds, got {value!r}")
    return seconds


@dataclass(frozen=True)
class Freshness:
    """How far a ``CallbackTimestamp`` may lie from the receiver's clock: ``max_age`` behind, ``max_skew`` ahead."""

    max_age: float = DEFAULT_MAX_AGE_SECONDS
    max_skew: float = DEFAULT_MAX_CLOCK_SKEW_SECONDS

    @property
    def replay_horizon(self) -> float:
        """
        Seconds after its arrival within which a copy of a callback can still be accepted: a copy passes only while
        its timestamp, which lay at most ``max_skew`` ahead of the first arrival, is at most ``max_age`` old. Rows
        younger than this must be kept for de-duplication (``prune`` keeps them).
        """
        return self.max_age + self.max_skew


def resolve_freshness(max_age: float | None = None, max_skew: float | None = None) -> Freshness:
    return Freshness(
        _seconds(max_age, MAX_AGE_ENV, "max_age_seconds", DEFAULT_MAX_AGE_SECONDS),
        _seconds(max_skew, MAX_CLOCK_SKEW_ENV, "max_clock_skew_seconds", DEFAULT_MAX_CLOCK_SKEW_SECONDS),
    )


def redact_url(url: str) -> str:
    """
    A database URL with its secrets hidden, for messages: the password of ``user:password@``, a user part without
    a password (``//token@host``), and query values named like a secret (``?password=...``).
    """
    url = re.sub(r"(//[^:/@]+:)[^@]*@", r"\1***@", url)
    url = re.sub(r"//[^:/@]+@", "//***@", url)
    return re.sub(r"([?&](?:password|passwd|pwd|secret|token|sslpassword)=)[^&#]*", r"\1***", url, flags=re.I)
