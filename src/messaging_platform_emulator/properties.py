"""
Where the platform's JSON reader finds a property of a request body: in any case, the last of several spellings,
and nothing of a property its resource does not have. ``Properties`` does that for one JSON object and notes each
departure from the API reference (case, a second spelling, an unknown property) in the request's ``RequestCheck``;
``RequestBodies`` is what one request's bodies (a body and the objects nested in it) share.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import PROPERTY_INVALID_VALUE, ErrorDetail
from .request_json import JsonObject, note
from .violations import DUPLICATE_PROPERTY, PROPERTY_CASE, UNKNOWN_PROPERTY, current


class RequestBodies:
    """What a body and its nested bodies share: the request's check, the errors, and every closed object (whose
    unread properties are unknown ones)."""

    def __init__(self) -> None:
        self.check = current()
        self.strict = self.check is not None and self.check.strict
        self.errors: list[ErrorDetail] = []
        self.closed: list[Properties] = []
        self.unknown_noted = False

    def depart(self, object_type: str, path: str, rule: str, detail: str, refusal: str | None) -> None:
        """Note a departure from the API reference at ``path``; in strict mode it is an error (``refusal``, unless
        None: another error names the property already)."""
        note(self.check, path, rule, detail)
        if self.strict and refusal is not None:
            self.errors.append(ErrorDetail(PROPERTY_INVALID_VALUE, refusal, object_type, path))

    def note_unknown(self) -> None:
        """Once per request: note the properties of every closed object that no reader looked at."""
        if not self.unknown_noted:
            self.unknown_noted = True
            for properties in self.closed:
                properties.note_unknown()


class Properties:
    """The properties of one JSON object, looked up as the platform's reader does (see the module)."""

    def __init__(
        self, data: Mapping[str, Any], object_type: str, prefix: str, shared: RequestBodies, *, closed: bool
    ) -> None:
        pairs = data.pairs if isinstance(data, JsonObject) else list(data.items())
        self._spellings: dict[str, list[tuple[str, Any]]] = {}
        for given, value in pairs:
            self._spellings.setdefault(str(given).lower(), []).append((str(given), value))
        self._read: set[str] = set()  # lower-case names looked up
        self._looked: set[str] = set()  # names whose spelling was checked
        self.object_type = object_type
        self.prefix = prefix
        self._shared = shared
        if closed:
            shared.closed.append(self)

    def lookup(self, name: str) -> tuple[bool, Any]:
        """Whether the property is given, in any spelling, and its value: the last one given, as the platform's
        reader keeps; another case or a second spelling is noted (once)."""
        spellings = self._spellings.get(name.lower())
        self._read.add(name.lower())
        if not spellings:
            return False, None
        if name not in self._looked:
            self._looked.add(name)
            path = self.prefix + name
            wrong = [given for given, _ in spellings if given != name]
            shown = ", ".join(repr(self.prefix + given) for given in wrong)
            if wrong:
                self._shared.depart(
                    self.object_type,
                    path,
                    PROPERTY_CASE,
                    f"sent as {shown}",
                    f"Property names are case-sensitive: {shown} is not a property of {self.object_type}; "
                    f"spell it {path!r}.",
                )
            if len(spellings) > 1:
                every = ", ".join(repr(self.prefix + given) for given, _ in spellings)
                self._shared.depart(
                    self.object_type,
                    path,
                    DUPLICATE_PROPERTY,
                    f"given {len(spellings)} times ({every}); the last one is read",
                    None if wrong else f"{path} is given {len(spellings)} times ({every}); give it once.",
                )
        return True, spellings[-1][1]

    def expect(self, *names: str) -> None:
        """Check the spelling of properties the current request does not otherwise read."""
        for name in names:
            self.lookup(name)

    def ignore(self, *names: str) -> None:
        """Properties a request may carry that the platform does not read: not unknown ones."""
        self._read.update(name.lower() for name in names)

    def note_unknown(self) -> None:
        for lower, spellings in self._spellings.items():
            if lower not in self._read:
                given = spellings[0][0]
                self._shared.depart(
                    self.object_type,
                    self.prefix + given,
                    UNKNOWN_PROPERTY,
                    f"{self.prefix + given!r} is not a property of {self.object_type}; ignored",
                    f"{self.prefix + given} is not a property of {self.object_type}.",
                )
