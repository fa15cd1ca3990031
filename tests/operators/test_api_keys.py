"""API key operators against the emulator: the wire, the XCom, and secrets kept out of XCom unless asked for."""

from __future__ import annotations

import pytest
import requests

from messaging_platform_provider.client import MessagingPlatformApiError
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.operators import (
    MessagingPlatformChangeApiKeySecretOperator,
    MessagingPlatformCreateApiKeyOperator,
    MessagingPlatformGetApiKeyOperator,
    MessagingPlatformListApiKeysOperator,
    MessagingPlatformRevokeApiKeyOperator,
)
from tests.support.operator_context import (
    assert_wire_headers,
    clear_requests,
    fails_without_retry,
    refused,
    run,
    sent,
    strip_marker,
    task_context,
)

KEYS = "/api/v2.1/account/1001/api-key"


def status_with(platform, key: str, secret: str) -> int:
    """HTTP status of a platform call authenticated with this key and secret."""
    url = f"{platform.base_url}/account/1001/campaign"
    return requests.get(url, auth=(key, secret), timeout=10).status_code


def make_key(label: str = "Worker") -> dict:
    return MessagingPlatformHook().create_api_key(label)


def test_the_seed_is_what_the_paths_below_assume(platform):
    assert (platform.seed.account_id, platform.seed.api_key_id) == (1001, 1)


# -- list / get -----------------------------------------------------------------------------------


def test_list_api_keys(platform):
    made = make_key()
    clear_requests(platform)
    result = run(MessagingPlatformListApiKeysOperator(task_id="l"))
    (record,) = platform.control.requests()
    assert sent(record) == ("GET", KEYS, "")
    assert_wire_headers(platform, record, with_body=False)
    assert [k["Id"] for k in result] == [1, made["Id"]]
    assert result[0]["Key"] == platform.seed.api_key
    assert all("Secret" not in k for k in result)


def test_get_api_key_leaves_the_secret_out_of_xcom(platform):
    result = run(MessagingPlatformGetApiKeyOperator(task_id="g", key_id=1))
    (record,) = platform.control.requests()
    assert sent(record) == ("GET", f"{KEYS}/1", "")
    assert (result["Id"], result["AccountId"], result["Key"]) == (1, 1001, platform.seed.api_key)
    assert "Secret" not in result
    assert platform.seed.api_secret not in repr(result)


def test_get_api_key_with_include_secret(platform):
    result = run(MessagingPlatformGetApiKeyOperator(task_id="g", key_id="1", include_secret=True))
    assert result["Secret"] == platform.seed.api_secret
    assert sent(platform.control.requests()[0]) == ("GET", f"{KEYS}/1", "")


def test_get_api_key_account_override(platform):
    with fails_without_retry(MessagingPlatformApiError) as caught:
        run(MessagingPlatformGetApiKeyOperator(task_id="g", key_id=1, account_id=1005))
    assert caught.value.status == 404
    assert sent(platform.control.requests()[0]) == ("GET", "/api/v2.1/account/1005/api-key/1", "")


# -- create ---------------------------------------------------------------------------------------


def test_create_api_key_sends_label_with_marker_and_keeps_the_secret_out_of_xcom(platform):
    result = run(MessagingPlatformCreateApiKeyOperator(task_id="k", key_label="CI key"))
    lookup, post = platform.control.requests()
    assert sent(lookup) == ("GET", KEYS, "")
    assert sent(post) == ("POST", KEYS, "")
    assert_wire_headers(platform, post, with_body=True)
    marker = "[af:ded3806f92c21150]"  # sha256("d␟k␟r1␟-1"), first 16 hex digits: dag, task, run, map index
    assert post["json"] == {"Label": f"CI key {marker}", "TypeId": 2}
    assert post["status"] == 201
    assert result["Id"] == 2 and result["TypeId"] == 2
    assert strip_marker(result["Label"]) == "CI key"
    assert result["Key"] and "Secret" not in result
    secret = MessagingPlatformHook().get_api_key(result["Id"])["Secret"]
    assert secret not in repr(result)


def test_create_api_key_with_include_secret_returns_a_working_secret(platform):
    op = MessagingPlatformCreateApiKeyOperator(
        task_id="k", key_label="Temp", key_type="Temporary", valid_to="2099-01-01T00:00:00Z", include_secret=True
    )
    result = run(op)
    post = platform.control.requests()[-1]
    assert post["json"] == {
        "Label": "Temp [af:ded3806f92c21150]",
        "TypeId": 3,
        "ValidTo": "2099-01-01T00:00:00",
    }
    assert result["TypeId"] == 3 and result["ValidTo"] == "2099-01-01T00:00:00"
    assert result["Secret"]
    assert status_with(platform, result["Key"], result["Secret"]) == 204


def test_create_api_key_twice_with_the_same_context_posts_once_and_re_reads_the_secret(platform):
    op = MessagingPlatformCreateApiKeyOperator(task_id="k", key_label="Once", include_secret=True)
    context = task_context(op)
    first = run(op, context)
    second = run(op, context)
    assert second["Id"] == first["Id"] and second["Key"] == first["Key"]
    assert second["Secret"] == first["Secret"]
    assert [r["method"] for r in platform.control.requests()].count("POST") == 1
    assert [k["Id"] for k in MessagingPlatformHook().list_api_keys()] == [1, first["Id"]]


def test_create_api_key_retry_without_stored_id_finds_it_by_marker_with_its_secret(platform):
    op = MessagingPlatformCreateApiKeyOperator(task_id="k", key_label="Once", include_secret=True)
    first = run(op, task_context(op))
    clear_requests(platform)
    second = run(op, task_context(op))
    assert second == first and second["Secret"]
    assert [sent(r) for r in platform.control.requests()] == [("GET", KEYS, ""), ("GET", f"{KEYS}/{first['Id']}", "")]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"key_label": ""}, "key_label"),
        ({"key_label": "M", "key_type": "Master"}, "key_type"),
        ({"key_label": "T", "key_type": "Temporary"}, "valid_to"),
        ({"key_label": "C", "valid_to": "2099-01-01"}, "valid_to"),
        ({"key_label": "T", "key_type": 3, "valid_to": "soon"}, "valid_to"),
    ],
)
def test_create_api_key_bad_input_fails_before_any_request(platform, kwargs, field):
    with refused(field):
        run(MessagingPlatformCreateApiKeyOperator(task_id="k", **kwargs))
    assert platform.control.requests() == []


def test_api_key_operators_template_fields():
    assert set(MessagingPlatformCreateApiKeyOperator.template_fields) >= {
        "account_id", "key_label", "key_type", "valid_to", "extra",
    }  # fmt: skip
    for cls in (
        MessagingPlatformGetApiKeyOperator,
        MessagingPlatformChangeApiKeySecretOperator,
        MessagingPlatformRevokeApiKeyOperator,
    ):
        assert set(cls.template_fields) >= {"account_id", "key_id"}


# -- change secret --------------------------------------------------------------------------------


def test_change_api_key_secret_keeps_the_new_secret_out_of_xcom(platform):
    made = make_key()
    clear_requests(platform)
    result = run(MessagingPlatformChangeApiKeySecretOperator(task_id="rot", key_id=made["Id"]))
    (record,) = platform.control.requests()
    assert sent(record) == ("PUT", f"{KEYS}/{made['Id']}", "")
    assert_wire_headers(platform, record, with_body=False)
    assert record["json"] is None  # the platform generates the secret; nothing is sent
    assert (result["Id"], result["Key"]) == (made["Id"], made["Key"])
    assert "Secret" not in result
    assert status_with(platform, made["Key"], made["Secret"]) == 401  # the old secret stopped working


def test_change_api_key_secret_with_include_secret_returns_the_new_working_secret(platform):
    made = make_key()
    result = run(MessagingPlatformChangeApiKeySecretOperator(task_id="rot", key_id=made["Id"], include_secret=True))
    assert result["Secret"] and result["Secret"] != made["Secret"]
    assert status_with(platform, made["Key"], result["Secret"]) == 204
    assert status_with(platform, made["Key"], made["Secret"]) == 401


# -- revoke ---------------------------------------------------------------------------------------


def test_revoke_api_key_true_then_false(platform):
    made = make_key()
    clear_requests(platform)
    op = MessagingPlatformRevokeApiKeyOperator(task_id="rv", key_id=made["Id"])
    assert run(op) is True
    assert run(op) is False
    records = platform.control.requests()
    assert [sent(r) for r in records] == [("DELETE", f"{KEYS}/{made['Id']}", "")] * 2
    assert [r["status"] for r in records] == [200, 404]
    assert status_with(platform, made["Key"], made["Secret"]) == 401
    assert [k["Id"] for k in MessagingPlatformHook().list_api_keys()] == [1]


def test_revoke_api_key_missing_not_ok_fails(platform):
    with fails_without_retry(MessagingPlatformApiError) as caught:
        run(MessagingPlatformRevokeApiKeyOperator(task_id="rv", key_id=99, missing_ok=False))
    assert caught.value.status == 404
