"""The OpenAPI schema as the API's contract (drf-spectacular): every operation lists every status it can
answer, each error with the one error body (``Error``, api.exceptions), and public reads are marked
open to anonymous clients."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import get_view_model
from drf_spectacular.utils import OpenApiResponse
from rest_framework import permissions, serializers

from .permissions import IsOwnerOrAdminOrReadOnly
from .serializers import ErrorSerializer, StrictInput
from .throttles import ArenaScopedThrottle

# Permissions under which anyone, signed in or not, may read.
READ_OPEN = (permissions.AllowAny, permissions.IsAuthenticatedOrReadOnly, IsOwnerOrAdminOrReadOnly)

NO_NUL = "^[^\\x00]+$"  # an empty string is written apart (drf-spectacular's oneOf for blank-allowed fields)
ID_PATTERN = "^[0-9]{1,18}$"  # views.ID_REGEX as drf-spectacular writes it

ERROR_DESCRIPTIONS = {
    "400": "The request is not valid: each key names a field of the request (or `detail` for the request as a "
           "whole) with what is wrong with it. Nothing was changed. A query parameter the operation does not "
           "list is refused too, under its own name, as is a `format` it does not answer in.",
    "401": "The `Authorization` token is not valid, or this operation needs one and none was sent.",
    "403": "Signed in, but not allowed to do this (only the owner, organiser or an admin may), or a browser "
           "session without its CSRF token.",
    "404": "Nothing here that you may see: no such id (or not yours to see), or a page past the last.",
    "415": "The request body is in a content type this operation does not read.",
    "429": "Too many requests of this kind from this client for now; `detail` says how long to wait.",
}


class ErrorSchema(OpenApiSerializerExtension):
    """The error body: keys are request field names (or ``detail``), each with a list of messages."""

    target_class = "api.serializers.ErrorSerializer"

    def map_serializer(self, auto_schema, direction):
        messages = {"type": "array", "items": {"type": "string"}, "minItems": 1}
        return {
            "type": "object",
            "description": "What went wrong: `detail` for the request as a whole, and one key per request "
                           "field that was refused, each with its messages.",
            "properties": {"detail": {**messages, "description": "Messages about the request as a whole."}},
            "additionalProperties": {**messages, "description": "Messages about the request field of this name."},
            "minProperties": 1,
        }


class ArenaAutoSchema(AutoSchema):
    def get_auth(self):
        auths = super().get_auth()
        perms = [type(permission) for permission in self.view.get_permissions()]
        if self.method in permissions.SAFE_METHODS and all(p in READ_OPEN for p in perms) and {} not in auths:
            auths.append({})
        return auths

    def _resolve_path_parameters(self, variables):
        """An id in the path is an integer (the route takes 1 to 18 digits), described."""
        parameters = super()._resolve_path_parameters(variables)
        model = get_view_model(self.view, emit_warnings=False)
        for parameter in parameters:
            if parameter["schema"].get("pattern") == ID_PATTERN:
                parameter["schema"] = {"type": "integer", "minimum": 1, "maximum": 10**18 - 1}  # views.PATH_ID
                if parameter["name"] == "version_id":
                    parameter["description"] = "Id of the bot version."
                elif model is not None:
                    parameter["description"] = f"Id of the {model._meta.verbose_name}."
        return parameters

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if direction == "request" and isinstance(field, serializers.CharField) and not schema.keys() & {
                "pattern", "format", "enum"}:
            schema["pattern"] = NO_NUL  # DRF refuses a NUL in any string
        return schema

    def _map_serializer(self, serializer, direction, bypass_extensions=False):
        schema = super()._map_serializer(serializer, direction, bypass_extensions)
        if direction == "request" and isinstance(serializer, StrictInput):
            schema["additionalProperties"] = False  # StrictInput refuses unknown fields
        return schema

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for code in self._error_codes():
            description = ERROR_DESCRIPTIONS[code]
            if code not in responses:
                responses[code] = self._get_response_for_code(
                    OpenApiResponse(_error_serializer(), description=description), code, direction=direction)
            elif not responses[code].get("description"):
                responses[code]["description"] = description
        return responses

    def _error_codes(self) -> list[str]:
        safe = self.method in permissions.SAFE_METHODS
        codes = ["400"]  # every operation reads its query string, if only to refuse what it does not read
        if self.view.get_authenticators():
            codes.append("401")
        if not safe and self.view.get_authenticators():
            codes.append("403")
        if "{" in self.path or self._is_list_view() and self._get_paginator():
            codes.append("404")
        if not safe and self.get_request_serializer() is not None:
            codes.append("415")
        if not safe and any(issubclass(t, ArenaScopedThrottle) for t in self.view.throttle_classes):
            codes.append("429")
        return codes


def refused_when(rules: str) -> OpenApiResponse:
    """The 400 of an operation whose acceptance depends on more than the schema can say: ``rules`` names it."""
    return OpenApiResponse(_error_serializer(), description=f"{ERROR_DESCRIPTIONS['400']} Beyond the schema, "
                                                            f"refused also when {rules}")


def _error_serializer():
    return ErrorSerializer
