"""
What a rotation says and does once it has revoked the old key: a retry that then finds the stored key failing has
nothing to roll back to, and a connection rotating itself, whose manager signs with the revoked key, still revokes
its own unused key when the target changed at the very end.
"""

from __future__ import annotations

import pytest

from messaging_platform_provider.client import CreateOnce, MessagingPlatformClient
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.rotation import ApiKeyRotation, InMemoryTarget, RotationError
from messaging_platform_provider.rotation.platform_keys import key_id
from tests.rotation.test_rotation import Store, fresh_key
from tests.rotation.test_rotation_seams import labels


class Killed(BaseException):
    """The worker dies after a step: nothing of the rotation catches it."""


def test_a_retry_after_the_revoke_whose_stored_key_fails_says_the_old_key_is_gone(platform):
    hook = MessagingPlatformHook()
    target = InMemoryTarget(fresh_key(hook))
    store = Store()

    def killed_after_the_revoke(step: str) -> None:
        if step == "old_key_revoked":
            raise Killed(step)

    with pytest.raises(Killed):
        ApiKeyRotation(hook, target, once=CreateOnce("de7e7ede7e7ede7e", store), on_step=killed_after_the_revoke).run()
    assert labels(hook) == ["Seeded key", "Rotated by Airflow"]
    platform.control.add_fault("status", status=401, count=1, method="GET", path="/campaign$")  # the read-back check
    with pytest.raises(RotationError) as caught:
        ApiKeyRotation(hook, target, once=CreateOnce("de7e7ede7e7ede7e", store)).run()
    message = str(caught.value)
    assert caught.value.step == "roll_back" and "the old key 2 was revoked already" in message, message
    assert "both valid" not in message  # it said so of a key that was gone
    assert labels(hook) == ["Seeded key", "Rotated by Airflow"]


def test_a_connection_rotating_itself_revokes_its_unused_key_with_the_targets_when_the_target_changed_at_the_end(
    platform,
):
    hook = MessagingPlatformHook()
    old = fresh_key(hook)
    other = fresh_key(hook, "Other")
    target = InMemoryTarget(old)
    manager = MessagingPlatformClient(platform.base_url, old.key, old.secret, account_id=platform.seed.account_id)

    def someone_writes(step: str) -> None:
        if step == "old_key_revoked":  # the manager's own key is gone now
            target.write(other)

    with pytest.raises(RotationError) as caught:
        ApiKeyRotation(manager, target, once=CreateOnce("5e1f0a5e5e1f0a5e", Store()), on_step=someone_writes).run()
    assert caught.value.step == "confirm_target" and "1 unused key(s) of this rotation revoked" in str(caught.value)
    assert labels(hook) == ["Seeded key", "Other"]  # the rotation's key is not left valid with nobody holding it


@pytest.mark.parametrize("value", ["²", "١٧", "1²"])
def test_a_key_id_in_digits_int_does_not_read_is_no_id(value):
    assert key_id(value) is None  # "²".isdigit() holds, int("²") raised a bare ValueError
