"""
The API key rotation operator: the sequence lives in ``rotation/rotate.py`` and is described in ``docs/rotation.md``.

Kept light for DAG parsing: the rotation, the REST client and ``requests`` are imported when the task runs (the
defaults come from the ``rotation`` package itself, which loads its modules on first use).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.operators.base import MessagingPlatformBaseOperator
from messaging_platform_provider.rotation import DEFAULT_AIRFLOW_API_CONN_ID, DEFAULT_LEASE_SECONDS

if TYPE_CHECKING:
    from airflow.sdk import Context

    from messaging_platform_provider.rotation.targets import CredentialTarget
    from messaging_platform_provider.tasks.templated import Templated

__all__ = [
    "MessagingPlatformRotateApiKeyOperator",
]


class MessagingPlatformRotateApiKeyOperator(MessagingPlatformBaseOperator):
    """
    Replace the API key a target holds with a new one, never leaving the target without a working credential.

    The new key is created (retry-safely), verified with a real call, stored, read back the way consumers read it
    and verified again; only then is the old key revoked. A failure at any step leaves the old key in place or
    rolls back to it; a retry of the task finishes the same rotation instead of starting another. Returns ids and
    labels only (never a secret): ``{"outcome", "target", "old_key_id", "new_key_id", "new_key_label",
    "old_key_revoked", "resumed", "notes"}``.

    A lease on the target keeps a second rotation of it out (one in another DAG run or DAG): that one fails at once.
    So do a malformed new key from the platform, a shadowed connection and a connection that is not defined (the
    target's, or ``airflow_api_conn_id``'s): failures that a retry cannot change end the task without its retries
    (``AirflowFailException``).

    :param messaging_platform_conn_id: the connection that manages keys (lists, creates, revokes) and gives the
        base URL and account. It may be the rotated connection itself.
    :param target_conn_id: the Airflow connection to rotate (login = key, password = secret), updated through
        Airflow's REST API; defaults to ``messaging_platform_conn_id``. It must live in the metadata database.
        Templated.
    :param airflow_api_conn_id: connection to Airflow's REST API: host = the API server's URL; login/password, or
        none in all-admins mode; extra ``access_token`` for a token issued beforehand. Templated.
    :param target: any other ``CredentialTarget`` (a secrets backend through ``CallableTarget``, a file...),
        instead of ``target_conn_id``.
    :param key_label: ``Label`` of the new key; the run marker is appended. Templated.
    :param key_type: Common or Temporary (then ``valid_to``, templated, is required).
    :param revoke_old: revoke the old key at the end (default); ``False`` leaves it valid (its id is returned) for
        tasks still running with it, to revoke later with ``MessagingPlatformRevokeApiKeyOperator``.
    :param account_id: account of the keys (templated); defaults to the connection's.
    :param lease_seconds: how long the target's lease holds without a renewal (default 15 minutes): longer than a
        slow rotation and than ``retry_delay``, so that a retry finds its lease still held. A crashed rotation's
        lease expires after it.
    """

    operation = Operations.create_api_key
    template_fields = (
        "account_id", "messaging_platform_conn_id", "target_conn_id", "airflow_api_conn_id", "key_label", "valid_to",
    )  # fmt: skip
    ui_color = "#fff3e0"

    def __init__(
        self,
        *,
        target_conn_id: Templated[str] | None = None,
        airflow_api_conn_id: Templated[str] = DEFAULT_AIRFLOW_API_CONN_ID,
        target: CredentialTarget | None = None,
        key_label: Templated[str] = "Rotated by Airflow",
        key_type: int | str = "Common",
        valid_to: Any = None,
        revoke_old: bool = True,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if target is not None and target_conn_id is not None:
            raise ValueError("give either target_conn_id or target, not both")
        self.target_conn_id = target_conn_id
        self.airflow_api_conn_id = airflow_api_conn_id
        self.target = target
        self.key_label = key_label
        self.key_type = key_type
        self.valid_to = valid_to
        self.revoke_old = revoke_old
        self.lease_seconds = lease_seconds
        self.check_literal_values()

    def credential_target(self) -> CredentialTarget:
        if self.target is not None:
            return self.target
        from messaging_platform_provider.rotation.airflow_target import AirflowConnectionTarget

        return AirflowConnectionTarget(self.target_conn_id or self.messaging_platform_conn_id, self.airflow_api_conn_id)

    def keeps_task_state(self) -> bool:
        return True

    def execute(self, context: Context) -> Any:
        from messaging_platform_provider.rotation.results import RotationError
        from messaging_platform_provider.rotation.rotate import ApiKeyRotation
        from messaging_platform_provider.tasks.state import once_for_task
        from messaging_platform_provider.version_compat import AirflowFailException

        with self.failing_fast():
            rotation = ApiKeyRotation(
                self.hook,
                self.credential_target(),
                once=once_for_task(context),
                account_id=self.account,
                key_label=self.key_label,
                key_type=self.key_type,
                valid_to=self.valid_to or None,
                revoke_old=self.revoke_old,
                lease_seconds=self.lease_seconds,
            )
            try:
                answer = rotation.run().to_xcom()
            except RotationError as exc:
                if exc.retry_cannot_help:
                    raise AirflowFailException(str(exc)) from exc
                raise
        return self.task_result(context, answer)

    def to_xcom(self, result: Any) -> Any:
        return result  # ids, labels and an outcome: the rotation never returns a secret
