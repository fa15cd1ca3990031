"""``EmulatorControl``: the emulator's control routes (under ``/_emulator``) as Python methods, for tests,
benchmarks and scripts that drive an emulator, in-process (``EmulatorServer.control``) or a CLI one.

It is built from the server's root URL (``EmulatorServer.url``; the CLI's base URL without ``/api/v2.1``). Each
method answers the route's JSON, a count as an ``int``; any answer but 2xx raises ``EmulatorControlError`` with the
route's status and message. Optional fields are keyword arguments; one not given (or given as None, where the
signature allows it) is left out of the request, so the route's default applies.

Each call has a connection of its own, closed after the answer (``Connection: close``): the client keeps no
socket open between calls, so it does not show in ``/connections`` as a connection of the code under test.
Proxy settings of the environment are ignored: an emulator is local.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, TypedDict

import httpx

from .prefixes import CONTROL_PREFIX

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing.Unpack from Python 3.11 on

DEFAULT_TIMEOUT = 10.0

FaultKind = Literal["status", "retry_after", "delay", "drop", "commit_then_drop"]
Outcome = Literal["Completed", "Failed", "Aborted"]


class FaultOptions(TypedDict, total=False):
    """A fault rule beside its kind (see ``faults.FaultRule``)."""

    count: int
    status: int
    retry_after: int
    delay: float
    probability: float
    seed: int
    method: str
    path: str


class Behaviour(TypedDict, total=False):
    """How a schedule's run goes, in emulator seconds: pending, then processing, then its outcome."""

    pending_seconds: float
    processing_seconds: float
    outcome: Outcome


class Sender(TypedDict, total=False):
    """Who an event comes from. Each is optional: the route takes the seeded account, the account's first channel
    and its first contact; a ``phone_number`` need not be a contact's."""

    account_id: int
    channel_id: str | int
    contact_id: int
    phone_number: str


class DialogFields(Sender, total=False):
    question_text: str
    question_campaign_id: int
    dialog_campaign_id: int
    subscription_id: int


class StopFields(Sender, total=False):
    subscription_id: int


class Policy(TypedDict, total=False):
    """How callback deliveries are tried (see ``delivery_record.DeliveryPolicy``)."""

    max_attempts: int
    backoff_seconds: float
    backoff_max_seconds: float
    timeout_seconds: float


class EmulatorControlError(Exception):
    """A control route answered something other than 2xx; ``message`` is its ``detail``."""

    def __init__(self, method: str, path: str, status: int, message: str) -> None:
        super().__init__(f"{method} {CONTROL_PREFIX}{path} answered {status}: {message}")
        self.status = status
        self.message = message


def _given(**fields: Any) -> dict[str, Any]:
    """The fields that are not None: what a control body sends."""
    return {name: value for name, value in fields.items() if value is not None}


def _message(response: httpx.Response) -> str:
    """The route's message: FastAPI's ``detail`` when it is a text, else the body (validation errors, say)."""
    try:
        detail = response.json().get("detail")
    except (ValueError, AttributeError):
        return response.text
    return detail if isinstance(detail, str) else response.text


class EmulatorControl:
    def __init__(self, url: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.url = url.rstrip("/")
        self._http = httpx.Client(
            base_url=self.url + CONTROL_PREFIX, timeout=timeout, headers={"Connection": "close"}, trust_env=False
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> EmulatorControl:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- any route ----------------------------------------------------------------------------------

    def request(
        self, method: str, path: str, *, json: Any = None, params: dict[str, Any] | None = None
    ) -> httpx.Response:
        """The raw answer of a control route (``path`` below ``/_emulator``), whatever its status."""
        return self._http.request(method, path, json=json, params=params)

    def call(self, method: str, path: str, *, json: Any = None, params: dict[str, Any] | None = None) -> Any:
        """The JSON answer of a control route; ``EmulatorControlError`` unless it answers 2xx."""
        response = self.request(method, path, json=json, params=params)
        if not response.is_success:
            raise EmulatorControlError(method, path, response.status_code, _message(response))
        return response.json()

    def _object(self, method: str, path: str, json: Any = None) -> dict[str, Any]:
        """A route that answers a JSON object."""
        answer: dict[str, Any] = self.call(method, path, json=json)
        return answer

    def _rows(self, path: str, since: int) -> list[dict[str, Any]]:
        """A GET that answers a JSON array of records, those after ``since``."""
        answer: list[dict[str, Any]] = self.call("GET", path, params={"since": since})
        return answer

    def _cleared(self, path: str) -> int:
        """A DELETE that answers ``{"cleared": n}``."""
        return int(self.call("DELETE", path)["cleared"])

    # -- the emulator -------------------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        """``{"status": "ok"}`` once the emulator serves."""
        return self._object("GET", "/health")

    def seed(self) -> dict[str, Any]:
        """The seeded account's ids and credentials, and ``base_url``."""
        return self._object("GET", "/seed")

    def reset(self) -> dict[str, Any]:
        """Everything back to the seed (faults, records, clock, behaviours, deliveries too); answers the seed."""
        return self._object("POST", "/reset")

    def connections(self) -> dict[str, int]:
        """TCP connections ``opened`` since start or reset, ``open`` now, and ``peak_open``."""
        counts: dict[str, int] = self.call("GET", "/connections")
        return counts

    # -- data ---------------------------------------------------------------------------------------

    def create_account(self, name: str, *, api_key: str | None = None, api_secret: str | None = None) -> dict[str, Any]:
        """Another account with a Common key, an action and a callback token; answers its ids and credentials."""
        return self._object("POST", "/accounts", _given(name=name, api_key=api_key, api_secret=api_secret))

    def add_contacts(self, count: int, *, account_id: int | None = None) -> dict[str, Any]:
        """``count`` generated contacts (for the seeded account by default)."""
        return self._object("POST", "/contacts", _given(count=count, account_id=account_id))

    def add_channel(self, code: str, *, account_id: int | None = None) -> dict[str, Any]:
        """A long code (``+15125550101``, E.164: voice calls are placed from it) or a short code (``55333``) for an
        account (the seeded one by default); answers ``{channel_id, account_id, code, long_code}``."""
        return self._object("POST", "/channels", _given(code=code, account_id=account_id))

    def add_keyword(
        self, name: str, *, channel_id: int | None = None, callback_required: bool | None = None
    ) -> dict[str, Any]:
        """A keyword on a channel (the seeded channel by default); answers it as the platform shows it."""
        body = _given(name=name, channel_id=channel_id, callback_required=callback_required)
        return self._object("POST", "/keywords", body)

    def add_api_key(
        self, *, account_id: int | None = None, type_id: int | None = None, label: str | None = None
    ) -> dict[str, Any]:
        """A key of type 1 Master (the default) or 2 Common; answers it with its ``Secret``."""
        return self._object("POST", "/api-keys", _given(account_id=account_id, type_id=type_id, label=label))

    # -- faults and the request record ------------------------------------------------------------

    def faults(self) -> list[dict[str, Any]]:
        """The active fault rules, with what is left of their ``count``."""
        answer: list[dict[str, Any]] = self.call("GET", "/faults")
        return answer

    def add_fault(self, kind: FaultKind, **options: Unpack[FaultOptions]) -> dict[str, Any]:
        """A fault rule for the next matching platform requests; answers it with its ``id``."""
        return self._object("POST", "/faults", {"kind": kind, **options})

    def clear_faults(self) -> int:
        """Remove every fault rule; answers how many there were."""
        return self._cleared("/faults")

    def conditions(self) -> dict[str, Any]:
        """The network conditions (``latency``, ``rate_limit``, ``burst``) and how many requests the limit refused
        (``limited``) since they were set."""
        return self._object("GET", "/conditions")

    def set_conditions(
        self, *, latency: float = 0.0, rate_limit: float | None = None, burst: int | None = None
    ) -> dict[str, Any]:
        """
        Every platform request waits ``latency`` seconds before it is answered; each account may make ``rate_limit``
        requests a second (``burst`` at once), beyond which it is answered 429 with ``Retry-After``. Omitted: no
        latency, no limit. ``reset`` goes back to the conditions given at start.
        """
        return self._object("POST", "/conditions", {"latency": latency, "rate_limit": rate_limit, "burst": burst})

    def requests(self, since: int = 0) -> list[dict[str, Any]]:
        """The platform requests received after sequence number ``since``, oldest first."""
        return self._rows("/requests", since)

    def clear_requests(self) -> int:
        """Empty the request record; answers how many requests it held."""
        return self._cleared("/requests")

    def violations(self, since: int = 0) -> list[dict[str, Any]]:
        """The departures from the API reference in platform requests after sequence number ``since``, oldest first:
        ``{seq, method, path, property, rule, detail, status}`` each."""
        return self._rows("/violations", since)

    def clear_violations(self) -> int:
        """Empty the violation record; answers how many violations it held."""
        return self._cleared("/violations")

    # -- clock and schedule lifecycle -------------------------------------------------------------

    def clock(self) -> dict[str, Any]:
        """``{"now", "scale"}`` of the emulator clock."""
        return self._object("GET", "/clock")

    def set_clock(self, *, scale: float | None = None, advance_seconds: float | None = None) -> dict[str, Any]:
        """Run the clock ``scale`` times as fast as real time (0 freezes it) and/or jump it forward."""
        return self._object("POST", "/clock", _given(scale=scale, advance_seconds=advance_seconds))

    def schedule_behaviour(self) -> dict[str, Any]:
        """How schedules created from now on run."""
        return self._object("GET", "/schedule-behaviour")

    def set_schedule_behaviour(self, **behaviour: Unpack[Behaviour]) -> dict[str, Any]:
        """Change how schedules created from now on run; answers the new behaviour."""
        return self._object("POST", "/schedule-behaviour", behaviour)

    def set_one_schedule_behaviour(self, schedule_id: int, **behaviour: Unpack[Behaviour]) -> dict[str, Any]:
        """Restart one schedule's run from now with this behaviour (the rest its own); answers the schedule."""
        return self._object("POST", f"/schedules/{schedule_id}/behaviour", behaviour)

    def abort_schedule(self, schedule_id: int) -> dict[str, Any]:
        """Abort a schedule now (409 when its run already ended); answers the schedule."""
        return self._object("POST", f"/schedules/{schedule_id}/abort")

    # -- events and callback deliveries -----------------------------------------------------------
    # Each event answers the event and its deliveries as started; ``wait``: once each is delivered or has failed.

    def keyword_event(
        self,
        keyword: str,
        *,
        channel_id: str | int | None = None,
        contact_id: int | None = None,
        phone_number: str | None = None,
        wait: bool = False,
    ) -> dict[str, Any]:
        """A keyword (name or id) texted in, to the Keyword callbacks of the keyword's account."""
        contact = _given(channel_id=channel_id, contact_id=contact_id, phone_number=phone_number)
        return self._event("keyword", {"keyword": keyword, **contact}, wait)

    def dialog_event(
        self, answer: str | bool | int | float, *, wait: bool = False, **fields: Unpack[DialogFields]
    ) -> dict[str, Any]:
        """A contact's answer to a dialog question."""
        return self._event("dialog", {"answer": answer, **fields}, wait)

    def stop_event(self, *, wait: bool = False, **fields: Unpack[StopFields]) -> dict[str, Any]:
        """A STOP texted in."""
        return self._event("stop", dict(fields), wait)

    def incoming_message_event(self, message: str, *, wait: bool = False, **sender: Unpack[Sender]) -> dict[str, Any]:
        """A text message texted in."""
        return self._event("incoming-message", {"message": message, **sender}, wait)

    def new_account_event(self, name: str, *, parent_id: int | None = None, wait: bool = False) -> dict[str, Any]:
        """A new account under ``parent_id`` (the seeded account by default); the answer adds it as ``account``."""
        return self._event("new-account", _given(name=name, parent_id=parent_id), wait)

    def _event(self, kind: str, body: dict[str, Any], wait: bool) -> dict[str, Any]:
        return self._object("POST", f"/events/{kind}", {**body, "wait": wait})

    def deliveries(self, since: int = 0) -> list[dict[str, Any]]:
        """The callback deliveries after id ``since``, oldest first, each with its tries."""
        return self._rows("/events/deliveries", since)

    def delivery(self, delivery_id: int) -> dict[str, Any]:
        """One callback delivery (404 when the record does not hold it)."""
        return self._object("GET", f"/events/deliveries/{delivery_id}")

    def clear_deliveries(self) -> int:
        """Empty the delivery record; answers how many deliveries it held."""
        return self._cleared("/events/deliveries")

    def delivery_policy(self) -> dict[str, Any]:
        """How deliveries are tried."""
        return self._object("GET", "/events/delivery-policy")

    def set_delivery_policy(self, **policy: Unpack[Policy]) -> dict[str, Any]:
        """Change how deliveries started from now on are tried; answers the new policy."""
        return self._object("POST", "/events/delivery-policy", policy)
