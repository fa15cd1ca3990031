"""OData query options of list endpoints: ``$filter``, ``$top`` and ``$skip`` (platform facts §1, §8.1).

``$filter`` takes a small, honest subset of OData: comparisons ``eq ne gt ge lt le``, ``and``, ``or``, ``not``,
parentheses, literals (integers, ``'text'`` with ``''`` for a quote, ``true``, ``false``, ``null``) and the
property names of the listed resource, spelt exactly (case-sensitive, PascalCase). Keywords are lower case, as
in OData. Each property has a type, and a comparison of mismatched types, an ordering (``gt`` …) of booleans, a
malformed expression or an unknown property is refused with 400 naming ``$filter``. Date-time properties are
compared as their ISO 8601 text (``Created gt '2026-01-01T00:00:00'``), which orders them by time.

Comparisons with null follow OData: ``eq null`` is true only for null, and an ordering with null is false.
Any other ``$``-prefixed query option is refused with 400 naming it (``$select``, ``$orderby``, ``$Filter`` …).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import PROPERTY_INVALID_VALUE, ErrorDetail, PlatformError

# Property types a $filter knows.
INTEGER = "integer"
STRING = "string"
BOOLEAN = "boolean"
NULL = "null"

FILTER, TOP, SKIP = "$filter", "$top", "$skip"
SUPPORTED = (FILTER, TOP, SKIP)
COMPARISONS = ("eq", "ne", "gt", "ge", "lt", "le")
ORDERINGS = ("gt", "ge", "lt", "le")
LITERALS = {"true": (BOOLEAN, True), "false": (BOOLEAN, False), "null": (NULL, None)}
KEYWORDS = frozenset((*COMPARISONS, "and", "or", "not", *LITERALS))
MAX_DEPTH = 50

Row = Mapping[str, Any]
Predicate = Callable[[Row], bool]

_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<open>\()|(?P<close>\))"
    r"|(?P<text>'(?:[^']|'')*')"
    r"|(?P<number>-?[0-9]+)(?![\w.])"
    r"|(?P<word>[A-Za-z_][A-Za-z0-9_]*)"
    r")"
)


class FilterError(ValueError):
    """A ``$filter`` expression the emulator cannot read; the message says why."""


@dataclass(frozen=True)
class Token:
    kind: str  # open, close, text, number, word, end
    value: str
    position: int  # 1-based character position, for messages


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    position = 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            tokens.append(Token("end", "", position + 1))
            return tokens
        match = _TOKEN.match(text, position)
        if match is None or match.lastgroup is None:
            raise FilterError(f"unexpected {text[position : position + 12]!r} at position {position + 1}")
        start = match.start(match.lastgroup)
        tokens.append(Token(match.lastgroup, match.group(match.lastgroup), start + 1))
        position = match.end()


@dataclass(frozen=True)
class Operand:
    """A property or a literal: ``kind`` is its type, ``read`` its value for a row, ``label`` its text."""

    kind: str
    read: Callable[[Row], Any]
    label: str


class _Parser:
    def __init__(self, text: str, properties: Mapping[str, str]) -> None:
        self.tokens = tokenize(text)
        self.index = 0
        self.properties = properties
        self.depth = 0

    # -- token helpers ----------------------------------------------------------------------------

    def peek(self) -> Token:
        return self.tokens[self.index]

    def take(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def at_word(self, *words: str) -> bool:
        token = self.peek()
        return token.kind == "word" and token.value in words

    @staticmethod
    def describe(token: Token) -> str:
        return "the end of the expression" if token.kind == "end" else f"{token.value!r} at position {token.position}"

    # -- grammar: or := and ('or' and)* ; and := unary ('and' unary)* ; unary := 'not' unary | primary ----

    def parse(self) -> Predicate:
        predicate = self.disjunction()
        if self.peek().kind != "end":
            raise FilterError(f"expected and, or or the end of the expression, got {self.describe(self.peek())}")
        return predicate

    def disjunction(self) -> Predicate:
        parts = [self.conjunction()]
        while self.at_word("or"):
            self.take()
            parts.append(self.conjunction())
        return parts[0] if len(parts) == 1 else (lambda row: any(part(row) for part in parts))

    def conjunction(self) -> Predicate:
        parts = [self.unary()]
        while self.at_word("and"):
            self.take()
            parts.append(self.unary())
        return parts[0] if len(parts) == 1 else (lambda row: all(part(row) for part in parts))

    def unary(self) -> Predicate:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise FilterError(f"the expression nests deeper than {MAX_DEPTH} levels")
        try:
            if self.at_word("not"):
                self.take()
                inner = self.unary()
                return lambda row: not inner(row)
            return self.primary()
        finally:
            self.depth -= 1

    def primary(self) -> Predicate:
        if self.peek().kind == "open":
            self.take()
            inner = self.disjunction()
            closing = self.take()
            if closing.kind != "close":
                raise FilterError(f"expected ')', got {self.describe(closing)}")
            return inner
        left = self.operand()
        if not self.at_word(*COMPARISONS):
            if left.kind != BOOLEAN:
                raise FilterError(
                    f"{left.label} is not a condition; compare it with eq, ne, gt, ge, lt or le "
                    f"(got {self.describe(self.peek())})"
                )
            return lambda row: left.read(row) is True
        operator = self.take().value
        return compare(operator, left, self.operand())

    def operand(self) -> Operand:
        token = self.take()
        if token.kind == "text":
            value = token.value[1:-1].replace("''", "'")
            return Operand(STRING, lambda row: value, token.value)
        if token.kind == "number":
            number = int(token.value)
            return Operand(INTEGER, lambda row: number, token.value)
        if token.kind == "word" and token.value in LITERALS:
            kind, constant = LITERALS[token.value]
            return Operand(kind, lambda row: constant, token.value)
        if token.kind == "word" and token.value not in KEYWORDS:
            return self.property(token.value)
        raise FilterError(f"expected a property name or a literal, got {self.describe(token)}")

    def property(self, name: str) -> Operand:
        kind = self.properties.get(name)
        if kind is None:
            spelt = [known for known in self.properties if known.lower() == name.lower()]
            hint = f" (names are case-sensitive: {spelt[0]})" if spelt else ""
            known = ", ".join(self.properties)
            raise FilterError(f"unknown property {name!r}{hint}; the properties are {known}")
        return Operand(kind, lambda row: row.get(name), name)


def compare(operator: str, left: Operand, right: Operand) -> Predicate:
    """A comparison, its types checked now: both sides of one type (or null), no ordering of booleans."""
    kinds = {left.kind, right.kind} - {NULL}
    if len(kinds) > 1:
        raise FilterError(f"cannot compare {left.label} ({left.kind}) with {right.label} ({right.kind})")
    if operator in ORDERINGS and BOOLEAN in kinds:
        raise FilterError(f"{operator} does not apply to true/false values ({left.label} {operator} {right.label})")

    def test(row: Row) -> bool:
        a, b = left.read(row), right.read(row)
        if operator == "eq":
            return bool(a == b)
        if operator == "ne":
            return bool(a != b)
        if a is None or b is None:
            return False
        if operator == "gt":
            return bool(a > b)
        if operator == "ge":
            return bool(a >= b)
        if operator == "lt":
            return bool(a < b)
        return bool(a <= b)

    return test


def parse_filter(text: str, properties: Mapping[str, str]) -> Predicate:
    """A predicate over answer rows; ``properties`` maps each filterable property to its type. FilterError."""
    if not text.strip():
        raise FilterError("the expression is empty")
    return _Parser(text, properties).parse()


# -- query options --------------------------------------------------------------------------------


def refuse_unsupported(names: Iterable[str], accepted: Collection[str]) -> None:
    """400 for every ``$`` query option not in ``accepted`` or given twice, each error naming the option."""
    errors = []
    given = [name for name in names if name.startswith("$")]
    for name in dict.fromkeys(given):
        if name in accepted:
            if given.count(name) > 1:
                message = f"The query option {name} is given more than once."
                errors.append(ErrorDetail(PROPERTY_INVALID_VALUE, message, None, name))
            continue
        if accepted:
            offer = f"this endpoint takes {', '.join(sorted(accepted))}"
        else:
            offer = "this endpoint takes no OData query options"
        message = f"The query option {name} is not supported; {offer} (names are case-sensitive)."
        errors.append(ErrorDetail(PROPERTY_INVALID_VALUE, message, None, name))
    if errors:
        raise PlatformError(400, errors)


@dataclass(frozen=True)
class ListQuery:
    """Validated OData options of one list request: rows matching ``predicate``, then skip, then top."""

    predicate: Predicate | None = None
    top: int | None = None
    skip: int = 0

    def apply(self, rows: Iterable[Row]) -> list[Row]:
        selected = [row for row in rows if self.predicate is None or self.predicate(row)]
        end = None if self.top is None else self.skip + self.top
        return selected[self.skip : end]


def read_list_query(given: Mapping[str, str | None], properties: Mapping[str, str], object_type: str) -> ListQuery:
    """``$filter``, ``$top`` (None: no limit) and ``$skip`` from their query text; one 400 listing every problem."""
    errors: list[ErrorDetail] = []

    def whole(name: str) -> int | None:
        text = given.get(name)
        if text is None:
            return None
        if not (text.isascii() and text.isdigit()):
            message = f"{name} must be a whole number of 0 or more; got {text!r}."
            errors.append(ErrorDetail(PROPERTY_INVALID_VALUE, message, object_type, name))
            return None
        return int(text)

    predicate = None
    text = given.get(FILTER)
    if text is not None:
        try:
            predicate = parse_filter(text, properties)
        except FilterError as exc:
            message = f"$filter is not a valid expression: {exc}."
            errors.append(ErrorDetail(PROPERTY_INVALID_VALUE, message, object_type, FILTER))
    top, skip = whole(TOP), whole(SKIP)
    if errors:
        raise PlatformError(400, errors)
    return ListQuery(predicate, top, skip or 0)
