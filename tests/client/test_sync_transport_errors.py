"""
The sync client's reading of a ``requests`` exception that carries nothing but its type, as a mounted adapter (a
test double such as requests-mock, a proxy adapter) may raise it: a connection error of unknown cause may have
reached the platform, so a read is retried and a create is not resent.
"""

from __future__ import annotations

from typing import Any

import pytest
import requests
from requests.adapters import BaseAdapter

from messaging_platform_provider.client import MessagingPlatformApiError, MessagingPlatformClient, RetryPolicy
from messaging_platform_provider.client.operations import Operations

#: unique to this file: the process-global secrets masker keeps every secret it saw
SECRET = "sync-bare-connection-error-secret-41b7"


class BareConnectionErrors(BaseAdapter):
    """An adapter whose every send raises ``requests.ConnectionError()`` with no arguments; it counts the sends."""

    def __init__(self) -> None:
        super().__init__()
        self.sends = 0

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> requests.Response:
        self.sends += 1
        raise requests.ConnectionError()

    def close(self) -> None:
        pass


@pytest.mark.parametrize(
    ("operation", "options", "sends"),
    [
        pytest.param(Operations.list_campaigns, {}, 3, id="read: retried"),
        pytest.param(Operations.create_campaign, {"body": {"Name": "Once", "CampaignTypeId": 1}}, 1, id="create: not"),
    ],
)
def test_a_connection_error_of_unknown_cause_counts_as_lost_after_sending(operation, options, sends):
    adapter = BareConnectionErrors()
    policy = RetryPolicy(max_attempts=3, backoff_base=0)
    with MessagingPlatformClient(
        "https://platform.example.com/api/v2.1",
        "key",
        SECRET,
        account_id=1001,
        retry_policy=policy,
        sleep=lambda _: None,
    ) as client:
        client.session.mount("https://", adapter)
        with pytest.raises(MessagingPlatformApiError) as caught:
            client.call(operation, **options)
    assert adapter.sends == sends
    assert caught.value.status is None and caught.value.attempts == sends
    assert caught.value.reason == "ConnectionError: connection lost after the request was sent"
