"""
What both sensors share: poke in the worker, or (``deferrable=True``) hand the wait to a trigger with an absolute
deadline, and resume from its event. Each sensor says which trigger it defers to and how its event ends the task.

Kept light for DAG parsing: the triggers are imported when a task runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from airflow.sdk import BaseSensorOperator, PokeReturnValue

from messaging_platform_provider.tasks.errors import failing_fast
from messaging_platform_provider.waiting.deadline import deadline_after, deferral_timeout
from messaging_platform_provider.waiting.outcome import (
    default_deferrable,
    execution_timed_out,
    execution_timeout_error,
    resumed_by_earlier_try,
    try_number,
    watched_deadline,
)

if TYPE_CHECKING:
    from airflow.sdk import Context
    from airflow.triggers.base import BaseTrigger


class MessagingPlatformBaseSensor(BaseSensorOperator):
    """
    Base of the Messaging Platform sensors.

    :param deferrable: wait in the triggerer (default ``[operators] default_deferrable``) after one poke in the
        worker that found the wait not over; the sensor's ``timeout`` then becomes an absolute UTC deadline fixed
        when the wait starts. The trigger also watches the try's ``execution_timeout``, which Airflow does not time
        while a task is deferred: past it, the task fails with ``AirflowTaskTimeout`` as in a worker.
    """

    def __init__(self, *, deferrable: bool | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.deferrable = default_deferrable() if deferrable is None else deferrable

    def execute(self, context: Context) -> Any:
        if not self.deferrable:
            with failing_fast():
                return super().execute(context)
        # One poke in the worker first: a wait that has already ended ends here, without a deferral. Besides
        # saving the triggerer a trigger, this keeps a trigger that would fire at its first poll away from a race in
        # Airflow's scheduler (apache/airflow#72716): a resumed task can be failed as a "state mismatch".
        with failing_fast():
            done = self.poke(context)
        if done:
            return done.xcom_value if isinstance(done, PokeReturnValue) else None
        wait_deadline = deadline_after(float(self.timeout))
        deadline, timed_by = watched_deadline(context, self.execution_timeout, wait_deadline)
        self.defer(
            trigger=self.make_trigger(
                context, poll_interval=float(self.poke_interval), deadline=deadline, try_number=try_number(context)
            ),
            method_name="execute_complete",
            kwargs={"timed_by": timed_by},
            timeout=deferral_timeout(deadline),
        )

    def make_trigger(
        self, context: Context, *, poll_interval: float, deadline: str | None, try_number: int
    ) -> BaseTrigger:
        """The trigger that waits in the triggerer, with the arguments every trigger of ours takes."""
        raise NotImplementedError

    def execute_complete(self, context: Context, event: dict[str, Any], timed_by: str | None = None) -> Any:
        if resumed_by_earlier_try(context, event, self.log):
            return self.execute(context)
        if execution_timed_out(context, self.execution_timeout, event, timed_by):
            raise execution_timeout_error(self.execution_timeout)
        with failing_fast():
            return self.result_from_event(event)

    def result_from_event(self, event: dict[str, Any]) -> Any:
        """The XCom for the trigger's event, or the error that ends the task."""
        raise NotImplementedError
