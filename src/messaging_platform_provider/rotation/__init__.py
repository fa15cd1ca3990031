"""
API key rotation that never locks a deployment out (``docs/rotation.md``).

What one rotation does is in three modules: ``rotate.py`` (``ApiKeyRotation``: the sequence, what the rotation
knows and its lease), ``platform_keys.py`` (``PlatformKeys``: finding, creating, verifying and revoking keys on the
platform) and ``target_update.py`` (``TargetUpdate``: storing the new credential and checking consumers see it;
``Recovery``: what a failed step leaves in the target). How it ends is ``results.py`` (step names,
``RotationError``, ``RotationResult``). What a rotation uses: the targets (``targets.py``, ``airflow_target.py``),
their leases (``lease.py``), the credential (``credentials.py``) and Airflow's REST API (``airflow_api.py``).

Names are loaded on first use, so that a DAG file naming a target (``CallableTarget``, ``AirflowConnectionTarget``)
does not import ``requests`` or the client while it is parsed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from messaging_platform_provider.client.lazy_exports import lazy_exports

# Defaults the operator shares with the rotation, defined here so that a DAG file importing the operator loads nothing
# more of rotation than this package.
#: The connection to Airflow's REST API that an Airflow connection target (and its lease) is written through.
DEFAULT_AIRFLOW_API_CONN_ID = "airflow_api_default"
#: Long enough for a slow rotation, and for a retry of the task (the same owner) to find its lease still held.
DEFAULT_LEASE_SECONDS = 900.0

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
    from messaging_platform_provider.rotation.results import (
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
    "RotationError": "results",
    "RotationResult": "results",
    "CallableTarget": "targets",
    "CredentialTarget": "targets",
    "FileTarget": "targets",
    "InMemoryTarget": "targets",
    "TargetNotConfigured": "targets",
}

__all__, __getattr__ = lazy_exports(__name__, _WHERE)
