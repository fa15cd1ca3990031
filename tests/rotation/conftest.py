"""The account the in-process rotation tests rotate in (test_failure_points.py and the *_details files)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rotation.test_failure_points import Account


@pytest.fixture
def account(platform: Any) -> Account:
    """The seeded account 1001 through its seeded key, the manager's default account."""
    seed = platform.seed
    assert (seed.account_id, seed.api_key_id) == (1001, 1)
    return Account(platform, 1001, seed.api_key, seed.api_secret, 1001, old_id=2)
