"""How the platform's error answers become details and the error message a user reads."""

from __future__ import annotations

import pytest

from messaging_platform_provider.client import ErrorDetail, MessagingPlatformApiError
from messaging_platform_provider.client.errors import parse_error_details
from messaging_platform_provider.client.operations import OPERATIONS
from messaging_platform_provider.client.request import PreparedRequest, decode

BASE = "https://platform.example.com/api/v2.1"
GET_CAMPAIGN = PreparedRequest("GET", "/account/1001/campaign/5", BASE + "/account/1001/campaign/5", {}, None)
LIST_CAMPAIGNS = PreparedRequest("GET", "/account/1001/campaign", BASE + "/account/1001/campaign", {}, None)
DELETE_CAMPAIGN = PreparedRequest("DELETE", "/account/1001/campaign/5", BASE + "/account/1001/campaign/5", {}, None)


# parse_error_details


def test_object_array_gives_every_field():
    body = b'[{"ErrorCodeId": 12, "ErrorMessage": "is required", "ObjectType": "Campaign", "PropertyName": "Name"}]'
    assert parse_error_details(body) == [
        ErrorDetail(message="is required", error_code_id=12, object_type="Campaign", property_name="Name")
    ]


def test_single_object_is_one_detail():
    body = b'{"ErrorCodeId": 404, "ErrorMessage": "Campaign not found", "ObjectType": "Campaign"}'
    assert parse_error_details(body) == [
        ErrorDetail(message="Campaign not found", error_code_id=404, object_type="Campaign")
    ]


def test_text_body_is_read_like_bytes():
    body = '[{"errorCodeId": 3, "errorMessage": "bad filter", "propertyName": "$filter"}]'
    assert parse_error_details(body) == [ErrorDetail(message="bad filter", error_code_id=3, property_name="$filter")]


def test_message_falls_back_to_message_property():
    assert parse_error_details(b'[{"Message": "An error has occurred."}]') == [
        ErrorDetail(message="An error has occurred.")
    ]


def test_error_message_alone_is_kept():
    assert parse_error_details(b'[{"ErrorMessage": "Label is taken"}]') == [ErrorDetail(message="Label is taken")]


def test_object_without_message_has_empty_message():
    assert parse_error_details(b'[{"ErrorCodeId": 7}]') == [ErrorDetail(message="", error_code_id=7)]


def test_non_integer_code_is_dropped():
    assert parse_error_details(b'[{"ErrorCodeId": "E42", "ErrorMessage": "odd"}]') == [ErrorDetail(message="odd")]


def test_string_array_gives_one_detail_each():
    assert parse_error_details(b'["Name is required", "Type is unknown"]') == [
        ErrorDetail(message="Name is required"),
        ErrorDetail(message="Type is unknown"),
    ]


def test_non_json_body_is_kept_as_stripped_text():
    assert parse_error_details(b"  Service Unavailable\r\n") == [ErrorDetail(message="Service Unavailable")]


def test_invalid_utf8_is_replaced_not_raised():
    assert parse_error_details(b"Bad gateway \xff\xfe") == [ErrorDetail(message="Bad gateway \ufffd\ufffd")]


# ErrorDetail.__str__


@pytest.mark.parametrize(
    ("detail", "text"),
    [
        (ErrorDetail("is required", 12, "Campaign", "Name"), "Campaign.Name: is required (code 12)"),
        (ErrorDetail("is required", None, None, "Name"), "Name: is required"),
        (ErrorDetail("Campaign not found", 404), "Campaign not found (code 404)"),
        (
            ErrorDetail("already in use", 0x01000000, "Coupon", "CampaignId"),
            "Coupon.CampaignId: already in use (code 0x01000000)",
        ),
        (ErrorDetail("is not valid", 0x06001234), "is not valid (code 0x06001234)"),
        (ErrorDetail("Service Unavailable"), "Service Unavailable"),
        (ErrorDetail("", 0), " (code 0)"),
    ],
)
def test_detail_text(detail, text):
    assert str(detail) == text


# MessagingPlatformApiError messages


def test_plain_failure_names_method_path_and_status():
    error = MessagingPlatformApiError(method="GET", path="/account/1001/campaign/5", status=404)
    assert str(error) == "GET /account/1001/campaign/5 failed with HTTP 404"
    assert (error.reason, error.attempts, error.details) == ("", 1, [])


def test_no_response_with_reason():
    error = MessagingPlatformApiError(
        method="POST", path="/account/1001/campaign", status=None, reason="connection refused"
    )
    assert str(error) == "POST /account/1001/campaign failed: no response (connection refused)"


def test_attempts_are_counted_from_two():
    error = MessagingPlatformApiError(method="GET", path="/account/1001/api-key", status=503, attempts=2)
    assert str(error) == "GET /account/1001/api-key failed with HTTP 503 after 2 attempts"


def test_all_parts_in_order():
    error = MessagingPlatformApiError(
        method="PUT",
        path="/account/1001/campaign/5",
        status=400,
        details=[ErrorDetail("is required", 12, "Campaign", "Name"), ErrorDetail("is unknown", None, None, "Type")],
        reason="Bad Request",
        attempts=3,
    )
    assert str(error) == (
        "PUT /account/1001/campaign/5 failed with HTTP 400 (Bad Request) after 3 attempts: "
        "Campaign.Name: is required (code 12); Type: is unknown"
    )


# decode


def test_error_status_raises_with_parsed_details():
    body = b'[{"ErrorCodeId": 404, "ErrorMessage": "Campaign not found"}]'
    with pytest.raises(MessagingPlatformApiError) as caught:
        decode(OPERATIONS["get_campaign"], GET_CAMPAIGN, 404, body)
    assert str(caught.value) == "GET /account/1001/campaign/5 failed with HTTP 404: Campaign not found (code 404)"
    assert caught.value.attempts == 1


def test_status_300_is_an_error():
    with pytest.raises(MessagingPlatformApiError) as caught:
        decode(OPERATIONS["get_campaign"], GET_CAMPAIGN, 300, b'["Multiple Choices"]')
    assert caught.value.status == 300
    assert str(caught.value) == "GET /account/1001/campaign/5 failed with HTTP 300: Multiple Choices"


def test_empty_200_answer_is_empty():
    assert decode(OPERATIONS["list_campaigns"], LIST_CAMPAIGNS, 200, b"") == []
    assert decode(OPERATIONS["get_campaign"], GET_CAMPAIGN, 200, b" \n") is None


def test_204_ignores_any_bytes():
    assert decode(OPERATIONS["delete_campaign"], DELETE_CAMPAIGN, 204, b'{"Id": 5}') is None


def test_204_of_an_object_operation_is_none():
    assert decode(OPERATIONS["delete_campaign"], DELETE_CAMPAIGN, 204, b"") is None
    assert decode(OPERATIONS["get_campaign"], GET_CAMPAIGN, 204, b"") is None


def test_answer_that_is_not_json():
    with pytest.raises(MessagingPlatformApiError) as caught:
        decode(OPERATIONS["get_campaign"], GET_CAMPAIGN, 200, b"<html>maintenance</html>")
    error = caught.value
    assert str(error) == "GET /account/1001/campaign/5 failed with HTTP 200 (the answer is not JSON)"
    assert (error.method, error.path, error.status, error.reason) == (
        "GET",
        "/account/1001/campaign/5",
        200,
        "the answer is not JSON",
    )


def test_list_operation_answering_an_object():
    with pytest.raises(MessagingPlatformApiError) as caught:
        decode(OPERATIONS["list_campaigns"], LIST_CAMPAIGNS, 200, b'{"Id": 5}')
    error = caught.value
    assert str(error) == "GET /account/1001/campaign failed with HTTP 200 (expected a JSON array)"
    assert (error.method, error.path, error.status, error.reason) == (
        "GET",
        "/account/1001/campaign",
        200,
        "expected a JSON array",
    )
