"""FastAPI application: platform routes under /api/v2.1, control routes under /_emulator."""

from __future__ import annotations

from fastapi import Depends, FastAPI, Request
from fastapi.exception_handlers import http_exception_handler, request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from .emulator import Emulator
from .errors import (
    NOT_FOUND,
    PROPERTY_INVALID_VALUE,
    UNKNOWN_ERROR,
    ControlError,
    ErrorDetail,
    PlatformError,
    error_body,
)
from .middleware import TrafficMiddleware, is_platform_path
from .paths import RouteTemplates
from .prefixes import API_PREFIX, CONTROL_PREFIX
from .routes import (
    api_keys,
    callbacks,
    campaigns,
    contacts,
    control,
    control_data,
    control_events,
    coupon_definitions,
    coupon_lists,
    coupon_redemptions,
    filter_groups,
    keywords,
    schedules,
    voice_calls,
)
from .routes.deps import check_query_options

CONTROL_ROUTERS = (control.router, control_data.router, control_events.router)
PLATFORM_ROUTERS = (
    campaigns.router,
    coupon_definitions.router,
    coupon_redemptions.router,
    coupon_lists.router,
    schedules.router,
    voice_calls.router,
    api_keys.router,
    filter_groups.router,
    contacts.router,
    callbacks.router,
    keywords.router,
)

# Path parameters, and the object type a malformed one is reported as (not found, like an unknown id).
_PATH_OBJECTS = {
    "account_id": "Account",
    "campaign_id": "Campaign",
    "action_id": "Action",
    "schedule_id": "ActionSchedule",
    "coupon_list_id": "ExternalCouponList",
    "key_id": "ApiKey",
    "contact_list_id": "ContactList",
    "group_id": "FilterGroup",
    "callback_id": "Callback",
    "contact_id": "Contact",
}
_QUERY_NAMES = {"only_mine": "onlyMine"}


def create_app(emulator: Emulator | None = None) -> FastAPI:
    """The app. No path is redirected: the platform (ASP.NET Web API) answers a path with a trailing slash as
    the same route without it, which ``TrafficMiddleware`` does for platform paths; elsewhere it is a 404."""
    emulator = emulator or Emulator()
    app = FastAPI(
        title="Messaging platform emulator",
        docs_url=CONTROL_PREFIX + "/docs",
        redoc_url=None,
        openapi_url=CONTROL_PREFIX + "/openapi.json",
        redirect_slashes=False,
    )
    app.state.emulator = emulator
    for router in PLATFORM_ROUTERS:
        app.include_router(router, prefix=API_PREFIX, dependencies=[Depends(check_query_options)])
    for router in CONTROL_ROUTERS:
        app.include_router(router, prefix=CONTROL_PREFIX)
    app.add_middleware(
        TrafficMiddleware,
        faults=emulator.faults,
        recorder=emulator.recorder,
        conditions=emulator.conditions,
        violations=emulator.violations,
        routes=RouteTemplates(path for route in app.routes if is_platform_path(path := getattr(route, "path", ""))),
    )
    app.add_exception_handler(PlatformError, _platform_error)
    app.add_exception_handler(ControlError, _control_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    return app


async def _platform_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, PlatformError)
    return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)


async def _control_error(request: Request, exc: Exception) -> Response:
    """As FastAPI answers an ``HTTPException`` raised in a control route."""
    assert isinstance(exc, ControlError)
    return JSONResponse({"detail": str(exc)}, status_code=exc.status)


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    if not is_platform_path(request.url.path):
        return await request_validation_exception_handler(request, exc)
    for error in exc.errors():
        location = tuple(error.get("loc", ()))
        if len(location) >= 2 and location[0] == "path":
            object_type = _PATH_OBJECTS.get(str(location[1]), "Object")
            value = request.path_params.get(str(location[1]))
            detail = ErrorDetail(NOT_FOUND, f"{object_type} {value} was not found.", object_type)
            return JSONResponse(error_body([detail]), status_code=404)
    details = []
    for error in exc.errors():
        location = tuple(error.get("loc", ()))
        name = _QUERY_NAMES.get(str(location[-1]), str(location[-1])) if location else None
        message = f"{name}: {error.get('msg', 'invalid value')}"
        details.append(ErrorDetail(PROPERTY_INVALID_VALUE, message, None, name))
    return JSONResponse(error_body(details), status_code=400)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if not is_platform_path(request.url.path):
        return await http_exception_handler(request, exc)
    if exc.status_code == 404:
        message = f"No HTTP resource was found that matches the request URI '{request.url.path}'."
        detail = ErrorDetail(NOT_FOUND, message)
    elif exc.status_code == 405:
        message = f"The requested resource does not support http method '{request.method}'."
        detail = ErrorDetail(UNKNOWN_ERROR, message)
    else:
        detail = ErrorDetail(UNKNOWN_ERROR, str(exc.detail))
    return JSONResponse(error_body([detail]), status_code=exc.status_code, headers=exc.headers)
