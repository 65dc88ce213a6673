"""The API's OpenAPI schema, told truly: each operation's error responses with the one error body, the
bounds the server enforces on text and lists, and which inputs refuse unknown fields.

REST_FRAMEWORK's DEFAULT_SCHEMA_CLASS is PortalAutoSchema, so every view under /api/ is covered
without decorating it; a view adds an error only it answers with `responses={409: error_response(...)}`.
"""

import re

from django.conf import settings
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse, extend_schema_serializer
from rest_framework import serializers

from portal.serializers import StrictSerializer

# What str.strip() and DRF's blank check count as whitespace, spelled out: the \s of JSON Schema
# validators (ECMA, Rust) differs from Python's on the separators U+001C-U+001F, NEL and U+FEFF.
WHITESPACE = "\\t\\n\\u000b\\u000c\\r\\u001c-\\u001f \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
# DRF refuses NUL in any text; a trimmed text must also hold something besides whitespace.
NO_NUL = "^[^\\u0000]*$"
NOT_BLANK = f"^[^\\u0000]*[^\\u0000{WHITESPACE}][^\\u0000]*$"
# Path parameters that never answer 404: a person's id answers 403 (whether or not the person exists),
# and a session is made by its first message.
NEVER_MISSING = {"user_id", "session_id"}


@extend_schema_serializer(component_name="Error")
class ErrorSerializer(serializers.Serializer):
    """The body of every error the API answers."""

    message = serializers.CharField(help_text="What went wrong and what to do, in a sentence.")
    extra = serializers.DictField(help_text=(
        "Details: `fields` maps each invalid field to its problems, `service` names a store that is "
        "unavailable, `category` a consent category withdrawn."))


def error_response(description: str) -> OpenApiResponse:
    """Return an error response for `@extend_schema(responses=...)`: the one error body, described."""
    return OpenApiResponse(ErrorSerializer, description=description)


def _errors(*, operation: dict, view, path: str) -> dict[str, str]:
    """Return the errors every operation of its shape answers, by status code."""
    body = "requestBody" in operation
    queried = any(p["in"] == "query" for p in operation.get("parameters", []))
    errors = {}
    if body or queried:
        errors["400"] = ("Invalid input: malformed, too deeply nested or undecodable JSON, an unknown field, or a "
                         "field out of its bounds; `extra.fields` names each.")
    if operation.get("security"):
        errors["401"] = "No valid bearer token: missing, unknown, revoked or expired."
        errors["403"] = ("The token lacks the scope, the agent is paused, or the person has not granted it access "
                         "or withdrew consent for the category (the same answer whether or not the person exists).")
    if set(re.findall(r"{(\w+)}", path)) - NEVER_MISSING:
        errors["404"] = "Nothing of that id for this person: a missing id and another person's answer the same."
    if body:
        errors["413"] = f"The body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE // (1024 * 1024)} MiB."
    if view.throttle_classes:
        errors["429"] = "Over the agent's per-minute rate limit; retry after `Retry-After` seconds."
    errors["503"] = ("A store is unavailable (Neo4j, Redis or the database, e.g. locked by another writer; "
                     "`extra.service` names it); the message says whether anything was stored. Retry after "
                     "`Retry-After` seconds.")
    return errors


def _input(field) -> bool:
    """Tell whether a field belongs to a strict (input) serializer, however deeply nested."""
    while field is not None:
        if isinstance(field, StrictSerializer):
            return True
        field = field.parent
    return False


class PortalAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema, adding the errors, bounds and strictness the server has."""

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None or not path.startswith("/api/"):
            return operation
        responses = operation["responses"]
        for code, description in _errors(operation=operation, view=self.view, path=path).items():
            if code not in responses:
                responses[code] = self._get_response_for_code(error_response(description), code)
        for code, description in (("429", "Seconds until the limit resets."),
                                  ("503", "Seconds after which a retry will most likely be served.")):
            if code in responses:
                responses[code].setdefault("headers", {})["Retry-After"] = {
                    "schema": {"type": "integer", "minimum": 1}, "description": description}
        operation["responses"] = dict(sorted(responses.items()))
        return operation

    def _map_basic_serializer(self, serializer, direction):
        schema = super()._map_basic_serializer(serializer, direction)
        if isinstance(serializer, StrictSerializer):
            schema["additionalProperties"] = False
            if serializer.exclusive:
                schema["allOf"] = [{"not": {"required": list(pair)}} for pair in serializer.exclusive]
            if serializer.needs_one:
                schema["anyOf"] = [{"required": [name]} for name in serializer.needs_one]
            if type(serializer).__doc__ is None:  # not the base class's "Reject fields..." on every input
                schema.pop("description", None)
        return schema

    def _insert_field_validators(self, field, schema):
        super()._insert_field_validators(field, schema)
        if not _input(field):
            return
        if isinstance(field, serializers.ListSerializer):
            fewest = max(field.min_length or 0, 0 if field.allow_empty else 1)
            if fewest:
                schema["minItems"] = fewest
            if field.max_length is not None:
                schema["maxItems"] = field.max_length
        elif isinstance(field, serializers.JSONField) and not field.allow_null:
            schema["not"] = {"type": "null"}
        elif isinstance(field, serializers.CharField) and schema.get("type") == "string":
            if not field.allow_blank:
                schema["minLength"] = max(schema.get("minLength", 0), 1)
            if "pattern" not in schema:
                schema["pattern"] = NOT_BLANK if field.trim_whitespace and not field.allow_blank else NO_NUL
