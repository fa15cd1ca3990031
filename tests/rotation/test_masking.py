"""
When a rotation registers a secret with Airflow's secrets masker (``rotation/credentials.py``'s ``mask``): every
secret, the moment it exists, including one in an answer the rotation refuses; never an empty value, and never in
a process that has not loaded Airflow.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from messaging_platform_provider import version_compat
from messaging_platform_provider.client import CreateOnce
from messaging_platform_provider.rotation import ApiKeyRotation
from messaging_platform_provider.rotation.credentials import mask
from tests.rotation.test_failure_points import TOKEN, Account, Failed, Store, outcome_of, workload
from tests.rotation.test_platform_keys_details import Answering
from tests.support.airflow_versions import secrets_masker


@pytest.fixture
def masked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What ``mask`` hands to Airflow's masker during the test (the masker itself is process-wide and keeps all)."""
    handed: list[str] = []
    monkeypatch.setattr(version_compat, "mask_secret", handed.append)
    return handed


def test_mask_hands_a_secret_to_airflows_masker_and_skips_empty_values(masked: list[str]) -> None:
    mask("")
    mask(None)
    assert masked == []
    mask("kd-5ec-handed-51c2")
    assert masked == ["kd-5ec-handed-51c2"]


def test_mask_does_nothing_in_a_process_without_airflow(masked: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A script using the REST client alone: importing Airflow to mask would read (and create) an AIRFLOW_HOME."""
    monkeypatch.delitem(sys.modules, "airflow.sdk")
    mask("kd-5ec-no-airflow-9e07")
    assert masked == []
    assert "airflow.sdk" not in sys.modules


def test_the_secret_of_a_malformed_key_answer_is_masked(platform: Any, account: Account) -> None:
    """
    The platform made a key but answered without its Id: the rotation refuses it, and the secret in that answer is
    masked all the same (a bare client, unlike the hook, masks nothing of an answer by itself).
    """
    seen: list[str] = []

    def no_id(answer: dict[str, Any]) -> None:
        seen.append(answer["Secret"])
        del answer["Id"]

    _, target = workload(account)
    manager: Any = Answering(account.manager(), no_id)
    failed = outcome_of(ApiKeyRotation(manager, target, once=CreateOnce(TOKEN, Store())))
    assert isinstance(failed, Failed) and failed.step == "create_new_key"
    assert len(seen) == 1
    assert secrets_masker().redact(f"answered {seen[0]} without an Id") == "answered *** without an Id"
