"""Serializers every API shares."""

from django.http import QueryDict
from rest_framework import serializers

# The JSON types a strict input takes for each kind of field: DRF would also read "5" as an integer,
# 5 as a text and "yes" as true, which the schema does not allow. Booleans are never numbers.
JSON_TYPES = (
    (serializers.BooleanField, (bool,)),
    (serializers.IntegerField, (int,)),
    (serializers.FloatField, (int, float)),
    (serializers.ChoiceField, (str,)),
    (serializers.CharField, (str,)),
)


def _wrong_type(field: serializers.Field, value) -> bool:
    """Tell whether a JSON value is not of the type the field's schema states (null is the field's to judge)."""
    if value is None:
        return False
    if isinstance(field, serializers.ListField) and isinstance(value, list):
        return any(_wrong_type(field.child, item) for item in value)
    for kind, types in JSON_TYPES:
        if isinstance(field, kind):
            return not isinstance(value, types) or (bool not in types and isinstance(value, bool))
    return False


class StrictSerializer(serializers.Serializer):
    """Reject fields the endpoint does not know, values of another JSON type than the field's, fields
    `exclusive` says may not come together, and a body holding none of `needs_one`, naming them."""

    exclusive: tuple[tuple[str, str], ...] = ()
    needs_one: tuple[str, ...] = ()

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
            mistyped = [] if isinstance(data, QueryDict) else sorted(  # a query string holds only text
                name for name, value in data.items() if _wrong_type(self.fields[name], value))
            if mistyped:
                raise serializers.ValidationError({name: ["Not of the type the schema gives."] for name in mistyped})
            for first, second in self.exclusive:
                if first in data and second in data:
                    raise serializers.ValidationError({first: [f"Send either {first} or {second}, not both."]})
            if self.needs_one and not set(self.needs_one) & set(data):
                raise serializers.ValidationError(
                    {"non_field_errors": [f"Give at least one of {', '.join(self.needs_one)}."]})
        return super().to_internal_value(data)
