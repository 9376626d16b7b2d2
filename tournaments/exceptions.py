"""The REST error shape: JSON that names the field (or ``detail``) for every failure."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import exceptions, status
from rest_framework.views import exception_handler

from engines import RefereeError


def _django_errors(exc: DjangoValidationError) -> dict:
    if hasattr(exc, "error_dict"):
        return {field: [m for e in errors for m in e.messages] for field, errors in exc.error_dict.items()}
    return {"detail": exc.messages}


def json_exception_handler(exc, context):
    """DRF's handler, plus Django ValidationError and referee errors turned into 400s with a field name."""
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(_django_errors(exc))
    elif isinstance(exc, RefereeError):
        exc = exceptions.ValidationError({"detail": [str(exc)]})
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(response.data, list):
        response.data = {"detail": response.data}
    elif isinstance(response.data, dict) and not response.data:
        response.data = {"detail": [exceptions.APIException.default_detail]}
    if response.status_code == status.HTTP_400_BAD_REQUEST and "detail" in response.data:
        detail = response.data["detail"]
        if not isinstance(detail, list):
            response.data["detail"] = [detail]
    return response
