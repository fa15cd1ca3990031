"""
The hook of a connection saved with the connection type's former name, ``messaging_platform``.

Airflow registers one hook per connection type and checks that the hook's ``conn_type`` is the type it is listed
under, so the former name needs a hook of its own: this one, the same hook under the other name. With it such a
connection keeps its form in the UI (fields, labels and Test button) and ``Connection.get_hook()`` still works;
the hooks never look at the type when they read a connection. Every read of one still makes Airflow warn about the
``_`` in its type: change the type to ``messagingplatform`` (docs/hook.md).
"""

from __future__ import annotations

from typing import Any

from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.hooks.names import LEGACY_CONN_TYPE


class MessagingPlatformLegacyTypeHook(MessagingPlatformHook):
    """``MessagingPlatformHook`` for a connection of the former type ``messaging_platform``; use that hook."""

    conn_type = LEGACY_CONN_TYPE
    hook_name = "Messaging Platform (former type messaging_platform)"

    # Airflow before 3.2 builds a type's form from the methods the hook class defines itself, not inherited ones.
    @classmethod
    def get_connection_form_widgets(cls) -> dict[str, Any]:
        """The connection form's extra fields, for Airflow before 3.2 (3.2+ reads ``conn-fields`` instead)."""
        return super().get_connection_form_widgets()

    @classmethod
    def get_ui_field_behaviour(cls) -> dict[str, Any]:
        """Hidden and relabelled standard fields, for Airflow before 3.2 (3.2+ reads ``ui-field-behaviour``)."""
        return super().get_ui_field_behaviour()
