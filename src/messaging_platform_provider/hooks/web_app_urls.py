"""
Where a created resource is in the platform's web app: the connection extras that hold a URL template for each
kind of page, the placeholders each template may use, the check of a template when the connection is read (a bad
one is dropped with a warning), and the link a template gives for one resource.

The web app's URL paths are not part of the API, so the connection says them: one whole URL per kind of page, with
placeholders for the ids (``https://app.example.com/accounts/{account_id}/campaigns/{campaign_id}``). A kind whose
extra is not set has no link. A placeholder can only be an id: a link is stored as XCom and shown to everyone who
can see the task, so nothing secret can be put into it. A template that cannot give a link costs only its page's
link: it is dropped when the connection is read, with a warning naming the extra, and every task, sensor, trigger
and notifier on the connection works as if the extra were not set.

Imports nothing of Airflow, of the client's transport or of the hooks: ``operators/links.py`` reads it, and DAG
files import the operators.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from string import Formatter
from urllib.parse import quote, urlsplit

from messaging_platform_provider.client.errors import MessagingPlatformValidationError

log = logging.getLogger(__name__)

#: Each connection extra that names a page of the platform's web app, with the placeholders its URL may hold.
WEB_APP_URLS: dict[str, tuple[str, ...]] = {
    "web_app_campaign_url": ("account_id", "campaign_id"),
    "web_app_schedule_url": ("account_id", "action_id", "schedule_id"),
    "web_app_push_voice_call_url": ("account_id", "action_id"),
}


def placeholders(extra: str, template: str) -> set[str]:
    """The placeholders a URL template uses; refused naming ``extra`` when it is not a template of its page."""
    allowed = WEB_APP_URLS[extra]
    try:
        pieces = list(Formatter().parse(template))
    except ValueError:
        raise MessagingPlatformValidationError(
            extra, "has a brace that opens or closes no placeholder (write a literal brace twice: {{ or }})"
        ) from None
    names = set()
    for _text, name, spec, conversion in pieces:
        if name is None:
            continue
        if name not in allowed or spec or conversion:
            raise MessagingPlatformValidationError(
                extra, f"has the placeholder {{{name}}}, which this page cannot fill", [f"{{{p}}}" for p in allowed]
            )
        names.add(name)
    return names


def check_web_app_url(extra: str, value: object) -> str:
    """
    The URL template given in ``extra``, without surrounding blanks; refused naming the extra unless it is an
    absolute http(s) URL with a host, without credentials, whose placeholders are among the page's. The error never
    repeats the value.
    """
    if not isinstance(value, str):
        raise MessagingPlatformValidationError(extra, f"must be a URL template as text, got {type(value).__name__}")
    template = value.strip()
    parts = urlsplit(template)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise MessagingPlatformValidationError(extra, "is not an absolute URL with a host", ["http", "https"])
    if "@" in parts.netloc:
        raise MessagingPlatformValidationError(
            extra, "must not carry credentials: the link is shown to everyone who can see the task"
        )
    placeholders(extra, template)
    return template


def usable_web_app_urls(given: Mapping[str, object]) -> dict[str, str]:
    """
    The checked templates of ``given`` (the extras set on the connection, by name). A template that fails the check
    is left out, with one warning that names its extra and what is wrong, never its value: a bad URL may hold
    something private. The connection still works; that page has no link.
    """
    usable = {}
    for extra, value in given.items():
        try:
            usable[extra] = check_web_app_url(extra, value)
        except MessagingPlatformValidationError as error:
            log.warning("Connection extra ignored, so tasks on this connection get no link to its page: %s", error)
    return usable


def web_app_link(extra: str, template: str, values: Mapping[str, object]) -> str:
    """
    The link a checked template gives: each placeholder replaced by its value, percent-encoded. Empty when a
    placeholder has no value (``None`` or empty): no link rather than a wrong one.
    """
    names = placeholders(extra, template)
    if any(values.get(name) in (None, "") for name in names):
        return ""
    return template.format_map({name: quote(str(values[name]), safe="") for name in names})
