"""
How a rotation ends: the names of its steps, ``RotationError`` (a step failed; what the target holds then) and
``RotationResult`` (what a finished rotation did), and ``Unknown``, what a failed read of the target leaves the
rotation knowing. Ids, labels and words only: never a secret.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ACQUIRE_LEASE = "acquire_lease"
READ_TARGET = "read_target"
FIND_OLD_KEY = "find_old_key"
CREATE_NEW_KEY = "create_new_key"
VERIFY_NEW_KEY = "verify_new_key"
CHECK_TARGET = "check_target"
STORE = "store"
READ_BACK = "read_back"
VERIFY_STORED = "verify_stored"
ROLL_BACK = "roll_back"
REVOKE_OLD_KEY = "revoke_old_key"
CONFIRM_TARGET = "confirm_target"
#: The steps in order; a ``RotationError`` names the one that failed.
STEPS = (
    ACQUIRE_LEASE,
    READ_TARGET,
    FIND_OLD_KEY,
    CREATE_NEW_KEY,
    VERIFY_NEW_KEY,
    CHECK_TARGET,
    STORE,
    READ_BACK,
    VERIFY_STORED,
    ROLL_BACK,
    REVOKE_OLD_KEY,
    CONFIRM_TARGET,
)
#: Points ``on_step`` is called at, each after the step named has completed (tests simulate a kill there).
CHECKPOINTS = (
    "old_key_recorded",
    "new_key_created",
    "new_key_verified",
    "stored",
    "stored_verified",
    "old_key_revoked",
)


@dataclass
class Unknown:
    """A target read that failed: what the target holds is not known; ``misconfigured``: ``TargetNotConfigured``."""

    reason: str
    misconfigured: bool = False


class RotationError(Exception):
    """
    A rotation stopped. ``step`` is the step that failed, ``target_holds`` what the target holds afterwards (in
    words, never a secret), ``rolled_back`` whether the target was put back on the old key. ``retry_cannot_help``:
    another try would fail the same way (another rotation holds the lease or changed the target, the platform
    answered a malformed key, the connection is shadowed, a connection the target needs is not defined), so the
    operator fails the task without its retries.
    """

    def __init__(
        self,
        step: str,
        problem: str,
        *,
        target_holds: str,
        old_key_id: int | None = None,
        new_key_id: int | None = None,
        rolled_back: bool = False,
        retry_cannot_help: bool = False,
    ) -> None:
        self.step = step
        self.problem = problem
        self.target_holds = target_holds
        self.old_key_id = old_key_id
        self.new_key_id = new_key_id
        self.rolled_back = rolled_back
        self.retry_cannot_help = retry_cannot_help
        verb = "rolled back" if rolled_back else "stopped"
        final = " A retry cannot help." if retry_cannot_help else ""
        super().__init__(
            f"API key rotation {verb} at step {step!r}: {problem}. The target holds {target_holds}.{final}"
        )

    def __reduce__(self) -> tuple[Any, ...]:  # keyword-only fields: pickle through a rebuilding function
        fields = {
            "target_holds": self.target_holds,
            "old_key_id": self.old_key_id,
            "new_key_id": self.new_key_id,
            "rolled_back": self.rolled_back,
            "retry_cannot_help": self.retry_cannot_help,
        }
        return _rebuild_error, (self.step, self.problem, fields)


def _rebuild_error(step: str, problem: str, fields: dict[str, Any]) -> RotationError:
    return RotationError(step, problem, **fields)


@dataclass(frozen=True)
class RotationResult:
    """What a finished rotation did: ids and labels only, fit for XCom."""

    target: str
    old_key_id: int
    new_key_id: int
    new_key_label: str
    old_key_revoked: bool
    resumed: bool = False
    notes: tuple[str, ...] = ()

    def to_xcom(self) -> dict[str, Any]:
        return {
            "outcome": "rotated",
            "target": self.target,
            "old_key_id": self.old_key_id,
            "new_key_id": self.new_key_id,
            "new_key_label": self.new_key_label,
            "old_key_revoked": self.old_key_revoked,
            "resumed": self.resumed,
            "notes": list(self.notes),
        }
