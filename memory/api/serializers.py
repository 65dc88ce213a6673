"""Input bounds of the agent API, in one place (docs/agent-api.md lists them)."""

import json
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from rest_framework import serializers

from memory import context
from memory.graph import ENTITY_TYPES, MESSAGE_ROLES
from memory.kinds import KINDS
from portal.serializers import StrictSerializer

USER_ID = r"^[A-Za-z0-9_-]{1,64}$"
SESSION_ID = r"^[A-Za-z0-9._:@-]{1,128}$"
CLIENT_ID = r"^[A-Za-z0-9._:@-]{1,128}$"
SOURCE_URL = r"^https?://[^\s/?#]+[^\s]*$"
MAX_MESSAGES_PER_APPEND = 100
MAX_CONTENT_CHARS = 32_000
MAX_QUERY_CHARS = 8_000
MAX_CONTEXT_MESSAGES = 50
MAX_TOKEN_BUDGET = 16_000
MAX_LIMIT = 50
MAX_TOOL_CALLS = 50
MAX_JSON_BYTES = 65_536
MAX_EXPLICIT = 50


def user_id_field(**kwargs):
    return serializers.RegexField(USER_ID, trim_whitespace=False,
                                  help_text="The subject's public id (1-64 of A-Z a-z 0-9 _ -).", **kwargs)


def session_id_field(**kwargs):
    return serializers.RegexField(SESSION_ID, trim_whitespace=False, help_text="1-128 of A-Z a-z 0-9 . _ : @ -", **kwargs)


class BoundedJSONField(serializers.JSONField):
    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if len(json.dumps(value)) > MAX_JSON_BYTES:
            raise serializers.ValidationError(f"At most {MAX_JSON_BYTES} bytes of JSON.")
        return value


class MessageTimeField(serializers.DateTimeField):
    """An ISO 8601 time with its UTC offset, at most MESSAGE_CLOCK_SKEW_SECONDS in the future."""

    def to_internal_value(self, value):
        try:
            naive = isinstance(value, str) and (parsed := parse_datetime(value)) is not None and parsed.tzinfo is None
        except ValueError:
            naive = False
        if naive:
            raise serializers.ValidationError("Give the UTC offset too, e.g. 2025-03-03T18:30:00+01:00.")
        moment = super().to_internal_value(value)
        skew = settings.MESSAGE_CLOCK_SKEW_SECONDS
        if moment > timezone.now() + timedelta(seconds=skew):
            raise serializers.ValidationError(f"More than {skew} seconds in the future.")
        return moment

    def enforce_timezone(self, value):
        return value  # keep the speaker's offset: "yesterday" is their yesterday


class ExplicitEntitySerializer(StrictSerializer):
    name = serializers.CharField(max_length=200)
    type = serializers.ChoiceField(choices=ENTITY_TYPES)
    aliases = serializers.ListField(child=serializers.CharField(max_length=200), max_length=20, required=False)


class ExplicitFactSerializer(StrictSerializer):
    subject = serializers.CharField(max_length=200)
    predicate = serializers.RegexField(r"^[A-Z][A-Z0-9_]{0,63}$", trim_whitespace=False,
                                       help_text="UPPER_SNAKE_CASE, at most 64.")
    object = serializers.CharField(max_length=500)
    valid_from = serializers.DateField(required=False)
    cardinality = serializers.ChoiceField(choices=["single", "multi"], required=False,
                                          help_text="single: a newer value supersedes the older one.")


class ExplicitPreferenceSerializer(StrictSerializer):
    category = serializers.CharField(max_length=64)
    preference = serializers.CharField(max_length=500)


class MessageInSerializer(StrictSerializer):
    role = serializers.ChoiceField(choices=MESSAGE_ROLES)
    content = serializers.CharField(max_length=MAX_CONTENT_CHARS, trim_whitespace=False)
    client_message_id = serializers.RegexField(CLIENT_ID, required=False, trim_whitespace=False,
                                               help_text="Makes re-sends idempotent (1-128 of A-Z a-z 0-9 . _ : @ -).")
    created_at = MessageTimeField(
        required=False,
        help_text="When the message was said (ISO 8601 with offset), for imports and clients that batch: the "
                  "reference for relative dates and the default valid time of what it states. Not earlier than "
                  "the message before it, not more than a few minutes in the future; default: now.")
    tool_name = serializers.CharField(max_length=100, required=False,
                                      help_text="The tool whose output the message holds (or relays).")
    source_url = serializers.RegexField(SOURCE_URL, max_length=2000, required=False, trim_whitespace=False,
                                        help_text="The web address the message's content was read from "
                                                  "(http or https).")
    # Memory the agent already knows: it skips extraction but still goes through resolution and supersession.
    entities = ExplicitEntitySerializer(many=True, required=False, max_length=MAX_EXPLICIT)
    facts = ExplicitFactSerializer(many=True, required=False, max_length=MAX_EXPLICIT)
    preferences = ExplicitPreferenceSerializer(many=True, required=False, max_length=MAX_EXPLICIT)


class ContextMessageSerializer(StrictSerializer):
    role = serializers.ChoiceField(choices=MESSAGE_ROLES)
    content = serializers.CharField(max_length=MAX_CONTENT_CHARS, allow_blank=True, trim_whitespace=False)


class IncludeSerializer(StrictSerializer):
    """What a context includes: each consent category (on by default), each section another app adds (off)."""

    def get_fields(self):
        return {name: serializers.BooleanField(default=on) for name, on in context.include_defaults().items()}


class LimitsSerializer(StrictSerializer):
    """How many items of each section a context may hold."""

    def get_fields(self):
        return {name: serializers.IntegerField(min_value=0, max_value=MAX_LIMIT, required=False)
                for name in context.default_limits()}


class ContextItemSerializer(serializers.Serializer):
    """One item of a context; its type is a kind of memory (memory.kinds) or a section another app adds."""

    def get_fields(self):
        types = [kind.item_type for kind in KINDS] + [section.item_type for section in context.PROVIDED.values()]
        return {"id": serializers.CharField(), "type": serializers.ChoiceField(choices=types),
                "score": serializers.FloatField(), "text": serializers.CharField(),
                "provenance": serializers.DictField()}


class ToolCallSerializer(StrictSerializer):
    tool_name = serializers.CharField(max_length=200)
    arguments = BoundedJSONField(required=False)
    result = BoundedJSONField(required=False)
    status = serializers.ChoiceField(choices=["success", "error", "timeout", "cancelled"], required=False)
    error = serializers.CharField(max_length=MAX_CONTENT_CHARS, required=False)
    duration_ms = serializers.FloatField(min_value=0, required=False)
