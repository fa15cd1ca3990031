"""Platform paths in another case: ASP.NET Web API matches the literal segments of a route whatever their case
(``contactList`` for ``contactlist``: the vendor's client libraries write both). ``RouteTemplates`` finds the route
a path matches only when case is ignored, and spells the path as the route does; path values (``{channel}``, a
coupon code) are left as sent.
"""

from __future__ import annotations

from collections.abc import Iterable


def _matches(template: list[str], segments: list[str], *, ignore_case: bool) -> bool:
    if len(template) != len(segments):
        return False
    for literal, sent in zip(template, segments, strict=True):
        if literal.startswith("{"):
            if not sent:
                return False
        elif literal != sent and not (ignore_case and literal.lower() == sent.lower()):
            return False
    return True


class RouteTemplates:
    """The paths of the platform routes (``/api/v2.1/account/{account_id}/campaign`` …)."""

    def __init__(self, paths: Iterable[str]) -> None:
        self._templates = [path.split("/") for path in paths]

    def respell(self, path: str) -> tuple[str, list[tuple[str, str]]]:
        """``path`` as the route it matches only when case is ignored spells it, and each (sent, route's) segment that
        differs; ``path`` unchanged and no pairs when it matches a route as sent, or none at all."""
        segments = path.split("/")
        if any(_matches(template, segments, ignore_case=False) for template in self._templates):
            return path, []
        for template in self._templates:
            if _matches(template, segments, ignore_case=True):
                spelt = [
                    sent if literal.startswith("{") else literal
                    for literal, sent in zip(template, segments, strict=True)
                ]
                changes = [(sent, right) for sent, right in zip(segments, spelt, strict=True) if sent != right]
                return "/".join(spelt), changes
        return path, []
