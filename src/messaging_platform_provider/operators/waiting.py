"""
Turning the wait's verdict into the task's outcome, for both paths (the sync loop's payload and the trigger's
event have one shape), and the ``wait_for_completion`` option of the create operators.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from messaging_platform_provider.compat import AirflowException, AirflowFailException, AirflowSensorTimeout, conf

if TYPE_CHECKING:
    from airflow.sdk import Context

WAIT_TEMPLATE_FIELDS = ("wait_timeout",)
#: The constructor arguments of ``wait_for_completion``, passed on by the operators that offer it.
WAIT_ARGUMENTS = (
    "wait_for_completion",
    "deferrable",
    "poll_interval",
    "wait_timeout",
    "success_statuses",
    "failure_statuses",
    "max_transient_errors",
)


def default_deferrable() -> bool:
    return conf.getboolean("operators", "default_deferrable", fallback=False)


def try_number(context: Context) -> int:
    """The running try, stamped into every trigger so its event says which try deferred."""
    return int(context["ti"].try_number)


def resumed_by_earlier_try(context: Context, event: Mapping[str, Any], log: Any) -> bool:
    """
    Whether this resume carries the event of an earlier try's deferral. Airflow 3.0 keeps a deferred task's
    resume point across retries (apache/airflow#56704, fixed in 3.1), so a retry would start by re-reading the
    event that ended the failed try, and fail the same way without doing anything. The deferrable operators and
    sensors then start the try afresh (a create adopts what the earlier try made). Never true from Airflow 3.1.
    """
    deferred = event.get("try_number")
    if deferred is None or int(deferred) == try_number(context):
        return False
    log.warning(
        "Try %s resumed with the event of try %s (an Airflow 3.0 retry); starting this try afresh.",
        try_number(context),
        deferred,
    )
    return True


def conclude(event: Mapping[str, Any], *, sensor: bool = False) -> dict[str, Any]:
    """
    Success returns the latest answer of every schedule (by id). A ProcessStatus that failed ends the task
    without retries (a retry would find the same ended schedule); an error or a timeout is an ordinary failure.
    """
    outcome, message = event.get("outcome"), str(event.get("message", ""))
    if outcome == "success":
        schedules: dict[str, Any] = dict(event.get("schedules") or {})
        return schedules
    if outcome == "timeout":
        raise AirflowSensorTimeout(message) if sensor else AirflowException(message)
    if outcome == "failure" and event.get("ended_status"):
        raise AirflowFailException(message)
    raise AirflowException(message or f"unexpected event {dict(event)!r}")


class WaitForSchedulesMixin:
    """
    ``wait_for_completion``: after creating, wait until the schedules' ProcessStatus is terminal, in the worker
    (``deferrable=False``) or in the triggerer (``deferrable=True``; default ``[operators] default_deferrable``).
    """

    messaging_platform_conn_id: str
    account: int | None

    def _init_wait(
        self,
        *,
        wait_for_completion: bool,
        deferrable: bool | None,
        poll_interval: float,
        wait_timeout: float | None,
        success_statuses: Iterable[str] | None,
        failure_statuses: Iterable[str] | None,
        max_transient_errors: int,
    ) -> None:
        from messaging_platform_provider.waiting import WaitRules

        self.wait_for_completion = wait_for_completion
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        self.poll_interval = poll_interval
        self.wait_timeout = wait_timeout
        self.wait_rules = WaitRules.build(success_statuses, failure_statuses, max_transient_errors)

    def wait_for(self, context: Context, action_id: int | str, schedule_ids: list[str], result: Any) -> Any:
        if not self.wait_for_completion or not schedule_ids:
            return result
        from messaging_platform_provider.waiting import deadline_after

        deadline = deadline_after(float(self.wait_timeout) if self.wait_timeout not in (None, "") else None)
        if self.deferrable:
            from messaging_platform_provider.triggers.schedule import MessagingPlatformScheduleTrigger

            self.defer(  # type: ignore[attr-defined]
                trigger=MessagingPlatformScheduleTrigger(
                    conn_id=self.messaging_platform_conn_id,
                    action_id=action_id,
                    schedule_ids=schedule_ids,
                    account_id=self.account,
                    success_statuses=self.wait_rules.success,
                    failure_statuses=self.wait_rules.failure,
                    max_transient_errors=self.wait_rules.max_transient_errors,
                    poll_interval=self.poll_interval,
                    deadline=deadline,
                    try_number=try_number(context),
                ),
                method_name="execute_complete",
                kwargs={"result": result},
                timeout=timedelta(seconds=float(self.wait_timeout)) if self.wait_timeout else None,
            )
        from messaging_platform_provider.client.retry import RetryPolicy
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
        from messaging_platform_provider.hooks.schedule_wait import wait_until_done
        from messaging_platform_provider.waiting import Watch

        watch = Watch(self.wait_rules, action_id, schedule_ids)
        # One attempt per poll, as in the trigger: transient errors are counted by the shared rules.
        hook = MessagingPlatformHook(self.messaging_platform_conn_id, retry_policy=RetryPolicy(max_attempts=1))
        step = wait_until_done(
            hook,
            watch,
            account_id=self.account,
            poll_interval=self.poll_interval,
            deadline=deadline,
            log=self.log,  # type: ignore[attr-defined]
        )
        return self.with_final(result, conclude(watch.payload(step)))

    def execute_complete(self, context: Context, event: dict[str, Any], result: Any = None) -> Any:
        if resumed_by_earlier_try(context, event, self.log):  # type: ignore[attr-defined]
            return self.execute(context)  # type: ignore[attr-defined]
        schedules = conclude(event)
        if result is None:  # resumed without the deferral's kwargs (``dag.test()`` passes the event alone)
            result = self.recover_result(event, schedules)
        return self.with_final(result, schedules)

    def with_final(self, result: Any, schedules: dict[str, Any]) -> Any:
        """The XCom after a successful wait; each operator shapes it."""
        raise NotImplementedError

    def recover_result(self, event: dict[str, Any], schedules: dict[str, Any]) -> Any:
        """The created resource, rebuilt from the trigger's event when the task resumes without it."""
        raise NotImplementedError
