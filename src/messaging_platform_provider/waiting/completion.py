"""
The ``wait_for_completion`` option of the create operators (schedules, push voice calls): after creating, wait
until the schedules' ProcessStatus is terminal, in the worker (``waiting.sync_loop``) or in the triggerer
(``MessagingPlatformScheduleTrigger``), and end the task as the sensor would (``waiting.outcome``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import TYPE_CHECKING, Any, ClassVar

from messaging_platform_provider.waiting.defaults import DEFAULT_MAX_TRANSIENT_ERRORS

# ``messaging_platform_provider.operators`` imports every operator module, this one with them, so every DAG file
# that uses an operator pays for this module's imports: what only constructing, running or resuming a task needs
# (``decision``, ``outcome``) is imported in the method that needs it.
if TYPE_CHECKING:
    from airflow.sdk import Context

    from messaging_platform_provider.client.once import CreateOnce
    from messaging_platform_provider.client.operations import Operation
    from messaging_platform_provider.tasks.started_work import StartedWork
    from messaging_platform_provider.tasks.templated import Templated


class WaitForSchedulesMixin:
    """
    ``wait_for_completion``: after creating, wait until the schedules' ProcessStatus is terminal, in the worker
    (``deferrable=False``) or in the triggerer (``deferrable=True``). Put before the operator base class, so that
    these parameters are taken here and the others passed on.

    :param wait_for_completion: wait until every schedule the task created has a terminal ProcessStatus; the
        XCom then holds the schedules as last read. A retry of a waiting task finds what it created and waits on
        it again.
    :param deferrable: wait in the triggerer (default ``[operators] default_deferrable``).
    :param poll_interval: seconds between reads while waiting.
    :param wait_timeout: seconds to wait at most (an absolute deadline is fixed when the wait starts); templated.
    :param success_statuses: statuses that end the wait successfully (default Completed).
    :param failure_statuses: statuses that fail the task (default Failed, Aborted).
    :param max_transient_errors: transient errors in a row tolerated while waiting.
    :param stop_on_kill: when Airflow kills the task (marked failed or success, cleared, its ``execution_timeout``
        passed), stop what this task instance created: the push voice call action, or the schedule added to an
        action. In the worker this is ``on_kill``; while the task is deferred, the trigger's ``on_kill`` (Airflow
        3.3+) and the execution deadline it watches. ``False`` leaves the platform work running.

    Each operator hands what its create returned to ``remember_started`` right away: ``self.started``
    (``tasks.started_work.StartedWork``) is what a kill stops.
    """

    messaging_platform_conn_id: str
    account: int | None
    execution_timeout: timedelta | None
    operation: ClassVar[Operation]

    def __init__(
        self,
        *,
        wait_for_completion: bool = False,
        deferrable: bool | None = None,
        poll_interval: float = 10.0,
        wait_timeout: Templated[float] | None = None,
        success_statuses: Iterable[str] | None = None,
        failure_statuses: Iterable[str] | None = None,
        max_transient_errors: int = DEFAULT_MAX_TRANSIENT_ERRORS,
        stop_on_kill: bool = True,
        **kwargs: Any,
    ) -> None:
        from messaging_platform_provider.waiting.decision import WaitRules
        from messaging_platform_provider.waiting.outcome import default_deferrable

        super().__init__(**kwargs)
        self.wait_for_completion = wait_for_completion
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        self.poll_interval = poll_interval
        self.wait_timeout = wait_timeout
        self.wait_rules = WaitRules.build(success_statuses, failure_statuses, max_transient_errors)
        self.stop_on_kill = stop_on_kill
        self.started: StartedWork | None = None

    def remember_started(self, once: CreateOnce | None, created_id: Any, work: StartedWork) -> None:
        """
        What a kill stops: ``work``, when this task instance made it (the create was sent now, or an earlier try of
        the task recorded this id). A resource the create adopted by matching its fields (after a lost answer, or a
        schedule with the same definition) may be someone else's: a kill leaves it alone.
        """
        if once is None or str(once.recorded_id(self.operation)) == str(created_id):
            self.started = work
            return
        self.started = None
        log = self.log  # type: ignore[attr-defined]
        log.info("stop_on_kill will leave %s alone: adopted by its fields, it may not be this task's.", work)

    def check_literal_values(self) -> None:
        super().check_literal_values()  # type: ignore[misc]
        from messaging_platform_provider.operators.literals import is_literal

        if is_literal(self.wait_timeout):
            self.wait_seconds()

    def wait_seconds(self) -> float | None:
        """The rendered ``wait_timeout`` in seconds (a template's text of a number is that number); ``None``: none."""
        value = self.wait_timeout
        if value is None or value == "":
            return None
        try:
            if isinstance(value, bool):
                raise ValueError
            return float(value)
        except (TypeError, ValueError):
            from messaging_platform_provider.client.errors import MessagingPlatformValidationError

            raise MessagingPlatformValidationError(
                "wait_timeout", f"must be a number of seconds, got {value!r}"
            ) from None

    def wait_for(self, context: Context, action_id: int | str, schedule_ids: list[str], result: Any) -> Any:
        if not self.wait_for_completion or not schedule_ids:
            return result
        from messaging_platform_provider.waiting.deadline import deadline_after

        deadline = deadline_after(self.wait_seconds())
        from messaging_platform_provider.waiting.decision import Watch
        from messaging_platform_provider.waiting.outcome import conclude, try_number
        from messaging_platform_provider.waiting.sync_loop import poll_round, polling_hook, wait_until_done

        watch = Watch(self.wait_rules, action_id, schedule_ids)
        hook = polling_hook(self.messaging_platform_conn_id)
        log = self.log  # type: ignore[attr-defined]
        if not self.deferrable:
            step = wait_until_done(
                hook, watch, account_id=self.account, poll_interval=self.poll_interval, deadline=deadline, log=log
            )
            return self.with_final(result, conclude(watch.payload(step)))
        # One round in the worker first, as the sensors do: schedules that have already ended need no deferral.
        verdict = poll_round(hook, watch, self.account, log)
        if verdict is not None:
            return self.with_final(result, conclude(watch.payload(verdict)))
        from messaging_platform_provider.triggers.schedule import MessagingPlatformScheduleTrigger
        from messaging_platform_provider.waiting.deadline import deferral_timeout
        from messaging_platform_provider.waiting.outcome import watched_deadline

        # The trigger watches the wait's deadline or the try's execution_timeout, whichever comes first.
        deadline, timed_by = watched_deadline(context, self.execution_timeout, deadline)
        stopped = self.started if self.stop_on_kill else None  # what the trigger's on_kill stops
        # The ids now, not only when the wait ends: the link to the web app shows while the task is deferred.
        self.push_ids(context, result)  # type: ignore[attr-defined]
        self.defer(  # type: ignore[attr-defined]
            trigger=MessagingPlatformScheduleTrigger(
                conn_id=self.messaging_platform_conn_id,
                action_id=action_id,
                schedule_ids=schedule_ids,
                account_id=self.account,
                **self.wait_rules.to_kwargs(),
                poll_interval=self.poll_interval,
                deadline=deadline,
                try_number=try_number(context),
                started_work=stopped.to_kwargs() if stopped is not None else None,
            ),
            method_name="execute_complete",
            kwargs={"result": result, "timed_by": timed_by},
            timeout=deferral_timeout(deadline),
        )

    def on_kill(self) -> None:
        """
        Airflow kills the running task: stop what it created (``stop_on_kill``). With a client of its own, built from
        the settings the task has read already: Airflow calls this from a signal handler, perhaps while ``execute``
        is in the middle of a request on ``self.hook``, or of a message to Airflow that reading the connection again
        would wait behind.
        """
        if self.started is None or not self.stop_on_kill:
            return
        from messaging_platform_provider.client.client import MessagingPlatformClient
        from messaging_platform_provider.hooks.connection import client_from_settings

        hook = self.hook  # type: ignore[attr-defined]
        client = client_from_settings(hook.settings, MessagingPlatformClient)
        try:
            self.stop_started(client, self.started)
        finally:
            client.close()

    def stop_started(self, caller: Any, work: StartedWork) -> None:
        """Stop ``work``, what this task instance created, unless ``stop_on_kill=False``; ``caller``: its ``call``."""
        if not self.stop_on_kill:
            return
        from messaging_platform_provider.tasks.started_work import stop

        stop(caller, work, self.account, self.log)  # type: ignore[attr-defined]

    def execute_complete(
        self, context: Context, event: dict[str, Any], result: Any = None, timed_by: str | None = None
    ) -> Any:
        from messaging_platform_provider.waiting.outcome import conclude, execution_timed_out, resumed_by_earlier_try

        if resumed_by_earlier_try(context, event, self.log):  # type: ignore[attr-defined]
            return self.execute(context)  # type: ignore[attr-defined]
        if execution_timed_out(context, self.execution_timeout, event, timed_by):
            self.end_at_execution_timeout(event)
        schedules = conclude(event)
        if result is None:  # resumed without the deferral's kwargs (``dag.test()`` passes the event alone)
            result = self.recover_result(event, schedules)
        return self.push_ids(context, self.with_final(result, schedules))  # type: ignore[attr-defined]

    def end_at_execution_timeout(self, event: dict[str, Any]) -> None:
        """
        The trigger's deadline was the try's ``execution_timeout``: stop what the task started (``stop_on_kill``, as
        Airflow's ``on_kill`` does in a worker), then raise ``AirflowTaskTimeout``, also when stopping failed.
        """
        from messaging_platform_provider.waiting.outcome import execution_timeout_error

        if event.get("started_work"):
            from messaging_platform_provider.tasks.started_work import StartedWork

            work = StartedWork.from_kwargs(event["started_work"])
            try:
                self.stop_started(self.hook, work)  # type: ignore[attr-defined]
            except Exception as exc:  # the timeout is the task's outcome; a failed stop is told, not raised
                self.log.warning("Could not stop %s: %s", work, exc)  # type: ignore[attr-defined]
        raise execution_timeout_error(self.execution_timeout)

    def with_final(self, result: Any, schedules: dict[str, Any]) -> Any:
        """The XCom after a successful wait; each operator shapes it."""
        raise NotImplementedError

    def recover_result(self, event: dict[str, Any], schedules: dict[str, Any]) -> Any:
        """The created resource, rebuilt from the trigger's event when the task resumes without it."""
        raise NotImplementedError
