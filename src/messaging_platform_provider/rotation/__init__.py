"""
API key rotation that never locks a deployment out (``docs/rotation.md``).

Names are loaded on first use, so that a DAG file naming a target (``CallableTarget``, ``AirflowConnectionTarget``)
does not import ``requests`` or the client while it is parsed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from messaging_platform_provider.lazy_exports import lazy_exports

# Explicit re-exports ("X as X") for type checkers; at run time the names come from __getattr__.
if TYPE_CHECKING:
    from messaging_platform_provider.rotation.airflow_api import (
        AirflowApiError as AirflowApiError,
        AirflowRestApi as AirflowRestApi,
    )
    from messaging_platform_provider.rotation.airflow_target import AirflowConnectionTarget as AirflowConnectionTarget
    from messaging_platform_provider.rotation.credentials import Credential as Credential
    from messaging_platform_provider.rotation.lease import (
        AirflowConnectionLease as AirflowConnectionLease,
        FileLease as FileLease,
        InMemoryLease as InMemoryLease,
        LeaseHeld as LeaseHeld,
        RotationLease as RotationLease,
    )
    from messaging_platform_provider.rotation.outcome import (
        RotationError as RotationError,
        RotationResult as RotationResult,
    )
    from messaging_platform_provider.rotation.rotate import ApiKeyRotation as ApiKeyRotation
    from messaging_platform_provider.rotation.targets import (
        CallableTarget as CallableTarget,
        CredentialTarget as CredentialTarget,
        FileTarget as FileTarget,
        InMemoryTarget as InMemoryTarget,
        TargetNotConfigured as TargetNotConfigured,
    )

_WHERE = {
    "AirflowApiError": "airflow_api",
    "AirflowRestApi": "airflow_api",
    "AirflowConnectionTarget": "airflow_target",
    "Credential": "credentials",
    "AirflowConnectionLease": "lease",
    "FileLease": "lease",
    "InMemoryLease": "lease",
    "LeaseHeld": "lease",
    "RotationLease": "lease",
    "ApiKeyRotation": "rotate",
    "RotationError": "outcome",
    "RotationResult": "outcome",
    "CallableTarget": "targets",
    "CredentialTarget": "targets",
    "FileTarget": "targets",
    "InMemoryTarget": "targets",
    "TargetNotConfigured": "targets",
}

__all__, __getattr__ = lazy_exports(__name__, _WHERE)
