"""The REST error shape, one for every failure of the API: a JSON object of names (a field, or ``detail``),
each with a list of messages; DRF's exception handler and the API's 404."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import JsonResponse
from rest_framework import exceptions
from rest_framework.views import exception_handler

from engines import RefereeError

NON_FIELD = "detail"


def _django_errors(exc: DjangoValidationError) -> dict:
    if hasattr(exc, "error_dict"):
        return {field: [m for e in errors for m in e.messages] for field, errors in exc.error_dict.items()}
    return {NON_FIELD: exc.messages}


def error_body(data) -> dict[str, list[str]]:
    """Any DRF error data (a string, a list, a dict, nested) as {name: [message, ...]}: nested names are
    joined with dots (``cells.0.points``), DRF's ``non_field_errors`` becomes ``detail``."""
    body: dict[str, list[str]] = {}

    def add(name: str, value) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                key = NON_FIELD if key == "non_field_errors" else str(key)
                add(key if name == NON_FIELD else f"{name}.{key}", inner)
        elif isinstance(value, list | tuple):
            for inner in value:
                add(name, inner)
        else:
            body.setdefault(name, []).append(str(value))

    add(NON_FIELD, data)
    return body or {NON_FIELD: [exceptions.APIException.default_detail]}


def json_exception_handler(exc, context):
    """DRF's handler, plus Django ValidationError and referee errors turned into 400s with a field name,
    every body in the one error shape."""
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(_django_errors(exc))
    elif isinstance(exc, RefereeError):
        exc = exceptions.ValidationError({NON_FIELD: [str(exc)]})
    response = exception_handler(exc, context)
    if response is None:
        return None
    response.data = error_body(response.data)
    return response


def api_not_found(request, exception=None):
    """The 404 for an /api/ address no route matches, in the API's error shape (a client reads JSON there, and
    the schema promises it). config/urls.py routes other addresses to the site's own page."""
    return JsonResponse({NON_FIELD: ["no API endpoint at this address; /api/ lists them"]}, status=404)
