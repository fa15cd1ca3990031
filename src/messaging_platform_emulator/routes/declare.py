"""Platform routes declared in one line each, instead of one hand-written endpoint function each.

Nearly every platform route does the same: authenticate (``KeyDep``), read its path values, perhaps take the raw
JSON body (``BodyDep``), call one service method as ``method(key, *path values[, body])``, and answer what it
returns as an object (``ok``) or a list (``listing``: 204 when empty). ``route`` builds that endpoint from the path,
with the same parameters and dependencies, in the same order, as the hand-written form: the key is checked first,
then the body's content type, then the path values. Path values are integers, which FastAPI checks (a malformed
one is answered 404 naming the object, see ``app.py``), except those named in ``text``, which are decoded text
(``PathText``). Routes that read query parameters are written out in their modules.
"""

from __future__ import annotations

import inspect
import string
from collections.abc import Callable, Collection
from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from ..emulator import Emulator
from .deps import BodyDep, EmulatorDep, KeyDep, PathText, listing, ok

#: Picks the service method a route calls, e.g. ``lambda emulator: emulator.campaigns.get``.
ServiceMethod = Callable[[Emulator], Callable[..., Any]]


def route(
    router: APIRouter,
    method: str,
    path: str,
    name: str,
    call: ServiceMethod,
    *,
    body: bool = False,
    status_code: int = 200,
    many: bool = False,
    text: Collection[str] = (),
    doc: str | None = None,
) -> None:
    """Add the route ``method path`` to ``router``: its endpoint, called ``name``, answers ``call``'s service method.

    ``body``: the raw JSON body is passed last. ``status_code``: of the answer (201 for a create). ``many``: the
    method returns a list, answered by ``listing``. ``text``: path values that are text, not integers. ``doc``:
    the endpoint's description.
    """
    path_names = [field for _, field, _, _ in string.Formatter().parse(path) if field]

    async def endpoint(**values: Any) -> Response:
        service_method = call(values["emulator"])
        arguments = [values["key"], *(values[field] for field in path_names)]
        if body:
            arguments.append(values["body"])
        result = service_method(*arguments)
        return listing(result) if many else ok(result, status_code)

    parameters = [_parameter(field, PathText if field in text else int) for field in path_names]
    parameters.append(_parameter("key", KeyDep))
    if body:
        parameters.append(_parameter("body", BodyDep))
    parameters.append(_parameter("emulator", EmulatorDep))
    endpoint.__signature__ = inspect.Signature(parameters, return_annotation=Response)  # type: ignore[attr-defined]
    endpoint.__name__ = endpoint.__qualname__ = name
    endpoint.__doc__ = doc
    router.add_api_route(path, endpoint, methods=[method], status_code=status_code, name=name)


def _parameter(name: str, annotation: Any) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation)
