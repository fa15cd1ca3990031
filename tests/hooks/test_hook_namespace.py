"""Every operation's typed method is the hook's own: in its namespace, with a docstring, and the client's too."""

from __future__ import annotations

import inspect
import pydoc

import pytest

from messaging_platform_provider.client.client import MessagingPlatformClient
from messaging_platform_provider.client.operations import OPERATIONS
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_every_operation_has_a_method_in_the_hook_namespace_with_a_docstring(name: str) -> None:
    method = vars(MessagingPlatformHook).get(name)
    assert callable(method), f"MessagingPlatformHook does not itself define {name}"
    assert (method.__doc__ or "").strip(), f"MessagingPlatformHook.{name} has no docstring"
    # One definition: the hook names the very function the Airflow-free client has.
    assert method is getattr(MessagingPlatformClient, name)


def test_help_on_the_hook_shows_a_method_with_its_signature_and_docstring_in_the_hook_section() -> None:
    text = pydoc.render_doc(MessagingPlatformHook, renderer=pydoc.plaintext)
    own = text.split("Methods inherited from", 1)[0]  # what help() lists as defined by the class itself
    signature = str(inspect.signature(MessagingPlatformHook.update_coupon_definition))
    assert f"update_coupon_definition{signature}" in own
    assert "Set the coupon definition of a coupon campaign" in own
