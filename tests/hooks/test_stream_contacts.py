"""``hook.stream_contacts``: every contact in order, pages read ahead but bounded, an early stop ends the reading."""

from __future__ import annotations

import threading
from itertools import islice
from typing import Any

import pytest

from messaging_platform_provider.client import MessagingPlatformApiError, MessagingPlatformValidationError, RetryPolicy
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook


@pytest.fixture
def hook(platform) -> MessagingPlatformHook:
    return MessagingPlatformHook(retry_policy=RetryPolicy(max_attempts=2, backoff_base=0.01))


def page_reads(platform: Any) -> list[str]:
    return [r["query"] for r in platform.control.requests() if r["path"].endswith("/contact")]


def readers_alive() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "pages-ahead"]


def test_every_contact_comes_in_order_as_page_by_page_and_the_reading_ends_at_the_last_page(platform, hook):
    platform.control.add_contacts(2345)
    expected = list(hook.iter_contacts(page_size=100))
    before = len(page_reads(platform))
    streamed = list(hook.stream_contacts(page_size=100, lookahead=3))
    assert streamed == expected and len(streamed) >= 2345
    reads = page_reads(platform)[before:]
    assert len(reads) <= len(expected) // 100 + 1 + 3  # at most ``lookahead`` pages asked beyond the last one
    assert not readers_alive()


def test_an_early_stop_stops_the_reading(platform, hook):
    platform.control.add_contacts(5000)
    before = len(page_reads(platform))
    contacts = hook.stream_contacts(page_size=50, lookahead=2)
    first = list(islice(contacts, 120))
    contacts.close()
    assert len(first) == 120 and not readers_alive()
    assert len(page_reads(platform)) - before <= 3 + 2 * 2  # the pages read, and those held and in flight


@pytest.mark.parametrize("lookahead", [1, 3])
def test_a_page_that_fails_is_raised_after_the_pages_before_it(platform, hook, lookahead):
    platform.control.add_contacts(500)
    # Rules apply in the order added: the first page read is answered (a delay of 0), the second fails.
    platform.control.add_fault(kind="delay", delay=0, count=1, path="/contact$")
    platform.control.add_fault(kind="status", status=500, count=1, path="/contact$")
    got: list[dict[str, Any]] = []
    with pytest.raises(MessagingPlatformApiError) as caught:
        for contact in hook.stream_contacts(page_size=100, lookahead=lookahead):
            got.append(contact)
    assert caught.value.status == 500 and not readers_alive()
    if lookahead == 1:  # one page at a time: the first page is the one answered
        assert [c["Id"] for c in got] == list(range(6001, 6101))
    else:  # pages in flight together: which arrived first is the server's choice; never past a failed page
        assert len(got) in (0, 100, 200)


@pytest.mark.parametrize("name", ["page_size", "lookahead"])
def test_a_bad_size_is_refused_by_name_before_anything_is_sent(platform, hook, name):
    before = len(platform.control.requests())
    with pytest.raises(MessagingPlatformValidationError) as caught:
        next(hook.stream_contacts(**{name: 0}))
    assert caught.value.field == name and len(platform.control.requests()) == before


def test_a_client_that_cannot_be_built_is_raised_to_the_reader(platform, hook, monkeypatch):
    from messaging_platform_provider.hooks import messaging_platform

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("no client")

    monkeypatch.setattr(messaging_platform, "client_from_settings", broken)
    with pytest.raises(RuntimeError, match="no client"):
        list(hook.stream_contacts())
    assert not readers_alive()
