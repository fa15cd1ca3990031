"""Fault rules: what to do instead of (or around) handling the next matching platform requests."""

from __future__ import annotations

import random
import re
import threading
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

FaultKind = Literal["status", "retry_after", "delay", "drop", "commit_then_drop"]


class FaultRule(BaseModel):
    """A rule as posted to ``/_emulator/faults``."""

    model_config = ConfigDict(extra="forbid")

    kind: FaultKind
    count: int = Field(1, ge=1, description="How many matching requests the rule applies to.")
    status: int = Field(503, ge=400, le=599, description="Response status for kind 'status'.")
    retry_after: int = Field(1, ge=0, description="Retry-After seconds for kind 'retry_after' (answers 429).")
    delay: float = Field(1.0, ge=0, le=600, description="Seconds to wait before handling, for kind 'delay'.")
    probability: float = Field(
        1.0, gt=0, le=1, description="Share of matching requests the rule fires on (drawn per request)."
    )
    seed: int | None = Field(None, description="Seed of the draws, for a repeatable run (random when omitted).")
    method: str | None = Field(None, description="HTTP method to match (any when omitted).")
    path: str | None = Field(None, description="Regular expression searched in the request path.")

    @field_validator("method")
    @classmethod
    def _upper(cls, value: str | None) -> str | None:
        return value.upper() if value else None

    @field_validator("path")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"path is not a valid regular expression: {exc}") from exc
        return value

    def matches(self, method: str, path: str) -> bool:
        if self.method is not None and self.method != method.upper():
            return False
        return self.path is None or re.search(self.path, path) is not None


class ActiveFault:
    def __init__(self, rule_id: int, rule: FaultRule) -> None:
        self.id = rule_id
        self.rule = rule
        self.remaining = rule.count
        self._draws = random.Random(rule.seed)

    def fires(self) -> bool:
        """Whether the rule fires on a matching request (always, unless it has a ``probability`` below 1)."""
        return self.rule.probability >= 1 or self._draws.random() < self.rule.probability

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, **self.rule.model_dump(), "count": self.remaining}


class FaultBook:
    """
    Rules in the order added; the first matching rule that fires (see ``probability``) applies, and is used up
    after ``count`` hits.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[ActiveFault] = []
        self._next_id = 1

    def add(self, rule: FaultRule) -> dict[str, Any]:
        with self._lock:
            active = ActiveFault(self._next_id, rule)
            self._next_id += 1
            self._rules.append(active)
            return active.to_dict()

    def take(self, method: str, path: str) -> FaultRule | None:
        with self._lock:
            for active in self._rules:
                if active.rule.matches(method, path) and active.fires():
                    active.remaining -= 1
                    if active.remaining <= 0:
                        self._rules.remove(active)
                    return active.rule
            return None

    def list(self) -> list[dict[str, Any]]:
        with self._lock:
            return [active.to_dict() for active in self._rules]

    def clear(self) -> int:
        with self._lock:
            cleared = len(self._rules)
            self._rules.clear()
            return cleared
