"""
``MessagingPlatformVoiceCallNotifier``: a notifier that phones people, for whatever Airflow hands a notifier to.

- ``on_failure_callback`` (and the other task and DAG callbacks): ``notify``, in the task's process, or in the DAG
  processor for a DAG's own callbacks;
- a Deadline Alert (Airflow 3.1+): ``AsyncCallback(MessagingPlatformVoiceCallNotifier, kwargs={...})``; the
  triggerer builds the notifier with the callback's context and awaits it, which runs ``async_notify``;
- the human-in-the-loop operators' ``notifiers=`` (Airflow 3.1+): ``notify``, when the task starts to wait.

Each call creates one push voice call action that runs at once (the platform's ``Execute``): from ``channels`` to
every number of ``targets``, speaking ``message``. The request is decided in one place, ``call_body``, for both
paths; only the hook that sends it differs (``MessagingPlatformHook``, ``MessagingPlatformAsyncHook``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from airflow.sdk.bases.notifier import BaseNotifier

from messaging_platform_provider.client.bodies import PushVoiceCallFields, push_voice_call_rules
from messaging_platform_provider.client.errors import MessagingPlatformValidationError, scrub, secret_forms
from messaging_platform_provider.client.fields import to_wire
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.client.values import positive_int
from messaging_platform_provider.hooks.names import DEFAULT_CONN_ID

if TYPE_CHECKING:
    from airflow.sdk import Context

    from messaging_platform_provider.hooks.connection import ConnectionSettings
    from messaging_platform_provider.tasks.templated import Templated

__all__ = ["MessagingPlatformVoiceCallNotifier", "default_message", "send_messaging_platform_voice_call_notification"]

#: How the default message words the state of the task instance it is about.
_STATES = {"failed": "failed", "up_for_retry": "failed, to be retried", "success": "succeeded"}


class MessagingPlatformVoiceCallNotifier(BaseNotifier):
    """
    Phone one or more numbers from a long code and speak a message: a push voice call action that runs at once.

    .. code-block:: python

        on_call = MessagingPlatformVoiceCallNotifier(channels="+15125550100", targets=["+15550100007"])
        BashOperator(task_id="load", bash_command="...", on_failure_callback=on_call)

    :param channels: the long code (E.164, ``"+15125550100"``) or channel id to call from, as text; or several.
    :param targets: the numbers to call (E.164) or contact ids, as text: one, or a list. A number where text belongs
        is refused: ``render_template_as_native_obj=True`` turns a template's ``+15550100007`` into the number
        15550100007.
    :param message: what the call says: a Jinja template rendered with the callback's context. By default
        (``default_message``) the DAG id, task id, try number, run id and the log's URL, where the context has them.
    :param messaging_platform_conn_id: the Airflow connection to the platform.
    :param account_id: the account that places the call, over the connection's.
    :param extra: further request fields of the push voice call action, merged on top of the ones built here.
    :param context: the callback's context, for Airflow to build the notifier with before awaiting it (a Deadline
        Alert's callback); not for DAG authors.

    Every parameter but ``context`` is templated. A value written in the DAG file is checked when the notifier is
    built, so a mistake fails the DAG file's import naming the parameter, not the alert when it is needed; a
    rendered value is checked before any request, with an error that names the parameter too.

    Secrets: the text spoken never holds the connection's API secret (in any form a request carries it), a callback
    token the receiver accepts, nor any value Airflow's secrets masker hides (a connection's password, a sensitive
    Variable): a message whose rendering brings one in is sent with ``***`` in its place, and a warning says so.

    When the call cannot be placed (bad input, the connection, the platform's refusal or no answer), Airflow's
    ``BaseNotifier`` logs the error ("Failed to send notification") and, from Airflow 3.1, raises it to its caller,
    which logs it and goes on: a task whose ``on_*_callback`` fails keeps its own state and error; the DAG processor
    logs a DAG callback's failure; a Deadline Alert's callback is recorded as failed; in a human-in-the-loop
    operator's ``notifiers=`` the error fails that task before it waits. Airflow 3.0 logs it and raises nothing.
    The create is sent again only where the platform cannot have acted on it (no connection made, or a 429), not
    after a 5xx or a lost answer: the call may have been placed then, and would ring twice.
    """

    template_fields = ("messaging_platform_conn_id", "account_id", "channels", "targets", "message", "extra")

    def __init__(
        self,
        *,
        channels: Templated[Iterable[str] | str],
        targets: Templated[Iterable[str] | str],
        message: Templated[str] | None = None,
        messaging_platform_conn_id: Templated[str] = DEFAULT_CONN_ID,
        account_id: Templated[int] | None = None,
        extra: Templated[Mapping[str, Any]] | None = None,
        context: Context | None = None,
    ) -> None:
        super().__init__()  # Airflow 3.0's BaseNotifier takes no context: it is kept below for every version
        self.channels = channels
        self.targets = targets
        self.message = message
        self.messaging_platform_conn_id = messaging_platform_conn_id
        self.account_id = account_id
        self.extra = extra
        self.context = context or {}
        self.check_literal_values()

    def check_literal_values(self) -> None:
        """
        The values written in the DAG file, checked as they will be before the call (``operators/literals.py``),
        and the three the call cannot do without: whom to call, from where, and (when given) what to say.
        """
        from messaging_platform_provider.operators.literals import check_literals, is_literal

        values = {"channels": self.channels, "targets": self.targets, "message": self.message, "extra": self.extra}
        check_literals(Operations.create_push_voice_call, values)
        for name in ("channels", "targets", "message"):
            value = values[name]
            if value is None and name != "message":  # no message: the default one
                raise MessagingPlatformValidationError(name, "is required")
            if value is not None and is_literal(value) and not (value.strip() if isinstance(value, str) else value):
                raise MessagingPlatformValidationError(name, "must not be empty")
        if is_literal(self.account_id) and self.account_id is not None:
            positive_int("account_id", self.account_id)

    def call_body(self, context: Context, settings: ConnectionSettings) -> dict[str, Any]:
        """
        The request ``notify`` and ``async_notify`` send, from the rendered values: checked and converted as the
        push voice call operator's (an error names the parameter before any request), with the message's secrets
        replaced by ``***``. ``settings``: the connection as read, whose secret is one of those.
        """
        from messaging_platform_provider.operators.literals import is_literal

        message = default_message(context) if self.message is None else str(self.message)
        values = {"channels": self.channels, "targets": self.targets, "message": message, "execute_now": True}
        for name in ("channels", "targets", "message"):
            if not is_literal(values[name]):  # never call anyone with a template's text
                raise MessagingPlatformValidationError(
                    name, "is a template still: it rendered to nothing (Airflow 3.0 to 3.2 then keep its text)"
                )
        body = push_voice_call_rules(to_wire(PushVoiceCallFields, values, self.extra, settings.platform_timezone))
        body["Message"] = self.without_secrets(str(body["Message"]), settings)
        return body

    def without_secrets(self, text: str, settings: ConnectionSettings) -> str:
        """``text`` with every secret it holds (see the class) replaced by ``***``; a warning when one was."""
        from messaging_platform_provider.version_compat import redact

        hidden: list[str] = sorted({*secret_forms(settings.api_key, settings.api_secret), *callback_tokens()}, key=len)
        cleaned = str(redact(scrub(text, reversed(hidden))))  # the longest first: one may contain another
        if cleaned != text:
            self.log.warning("message: the rendered text held a secret; it is spoken as *** instead")
        return cleaned

    def account(self) -> int | None:
        """The rendered ``account_id`` as the hooks take it (a template renders to text); None: the connection's."""
        if self.account_id is None or self.account_id == "":
            return None
        return positive_int("account_id", self.account_id)

    def notify(self, context: Context) -> None:
        """Place the call through ``MessagingPlatformHook``: in tasks, the DAG processor and HITL operators."""
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        hook = MessagingPlatformHook(self.messaging_platform_conn_id)
        try:
            body = self.call_body(context, hook.settings)
            action = hook.call(Operations.create_push_voice_call, body=body, account_id=self.account())
        finally:
            hook.close()
        self.log.info(
            "Voice call placed to %d number(s): push voice call action %s", len(body["Targets"]), action["Id"]
        )

    async def async_notify(self, context: Context) -> None:
        """Place the call through ``MessagingPlatformAsyncHook``, without blocking the triggerer's event loop."""
        from messaging_platform_provider.hooks.messaging_platform_async import MessagingPlatformAsyncHook

        hook = MessagingPlatformAsyncHook(self.messaging_platform_conn_id)
        try:
            body = self.call_body(context, await hook.aget_settings())
            action = await hook.call(Operations.create_push_voice_call, body=body, account_id=self.account())
        finally:
            await hook.aclose()
        self.log.info(
            "Voice call placed to %d number(s): push voice call action %s", len(body["Targets"]), action["Id"]
        )


def callback_tokens() -> list[str]:
    """The callback tokens the receiver accepts (``callbacks/settings.py``), each as configured and bare."""
    from messaging_platform_provider.callbacks.settings import parse_token, resolve_tokens

    tokens = []
    for entry in resolve_tokens():
        tokens.append(entry)
        try:
            tokens.append(parse_token(entry)[1])
        except ValueError:
            continue  # an entry the receiver refuses too: hidden whole all the same
    return tokens


def default_message(context: Mapping[str, Any]) -> str:
    """
    What the call says unless told otherwise, short enough to listen to: the DAG, task, try, how it ended, the run
    and the log's URL, each where the context has it. A task's callback has them all; a DAG's callback may have no
    task; a Deadline Alert's context has only the run (as JSON) and the deadline. For example: ``Airflow alert: DAG
    nightly_load, task load_orders, try 2: failed. Run scheduled__2026-11-27T02:00:00+00:00. Log:
    http://airflow.example.com/dags/nightly_load/runs/...``.
    """
    ti = context.get("ti") or context.get("task_instance")
    dag_run = context.get("dag_run")
    dag_id = _read(ti, "dag_id") or _read(dag_run, "dag_id") or _read(context.get("dag"), "dag_id")
    run_id = context.get("run_id") or _read(ti, "run_id") or _read(dag_run, "run_id") or _read(dag_run, "dag_run_id")
    about = [f"DAG {dag_id}"] if dag_id else []
    if _read(ti, "task_id"):
        about.append(f"task {_read(ti, 'task_id')}")
    if _read(ti, "try_number"):
        about.append(f"try {_read(ti, 'try_number')}")
    state = _read(ti, "state")
    if "deadline" in context:
        outcome = "missed its deadline"
    else:
        outcome = _STATES.get(str(getattr(state, "value", state)), "") or str(context.get("reason") or "")
    text = "Airflow alert" + (": " + ", ".join(about) if about else "") + (f": {outcome}." if outcome else ".")
    if run_id:
        text += f" Run {run_id}."
    if _read(ti, "log_url"):
        text += f" Log: {_read(ti, 'log_url')}"
    return text


def _read(source: Any, name: str) -> Any:
    """An attribute of an object, or a key of a mapping (a Deadline Alert's run is JSON); None when absent."""
    if source is None:
        return None
    if isinstance(source, Mapping):
        return source.get(name)
    return getattr(source, name, None)


#: The lower-case name Airflow's providers give each notifier: ``on_failure_callback=send_..._notification(...)``.
send_messaging_platform_voice_call_notification = MessagingPlatformVoiceCallNotifier
