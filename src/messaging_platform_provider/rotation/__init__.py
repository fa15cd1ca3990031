"""
API key rotation that never locks a deployment out (``docs/rotation.md``).

Names are loaded on first use, so that a DAG file naming a target (``CallableTarget``, ``AirflowConnectionTarget``)
does not import ``requests`` or the client while it is parsed.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from messaging_platform_provider.rotation.airflow_api import AirflowApiError, AirflowRestApi
    from messaging_platform_provider.rotation.airflow_target import AirflowConnectionTarget
    from messaging_platform_provider.rotation.credentials import Credential
    from messaging_platform_provider.rotation.outcome import RotationError, RotationResult
    from messaging_platform_provider.rotation.rotate import ApiKeyRotation
    from messaging_platform_provider.rotation.targets import (
        CallableTarget,
        CredentialTarget,
        FileTarget,
        InMemoryTarget,
    )

_WHERE = {
    "AirflowApiError": "airflow_api",
    "AirflowRestApi": "airflow_api",
    "AirflowConnectionTarget": "airflow_target",
    "Credential": "credentials",
    "ApiKeyRotation": "rotate",
    "RotationError": "outcome",
    "RotationResult": "outcome",
    "CallableTarget": "targets",
    "CredentialTarget": "targets",
    "FileTarget": "targets",
    "InMemoryTarget": "targets",
}

__all__ = [
    "AirflowApiError",
    "AirflowConnectionTarget",
    "AirflowRestApi",
    "ApiKeyRotation",
    "CallableTarget",
    "Credential",
    "CredentialTarget",
    "FileTarget",
    "InMemoryTarget",
    "RotationError",
    "RotationResult",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
