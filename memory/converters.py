from memory.selectors import ITEM_KINDS


class KindConverter:
    """`<kind:kind>` in URL patterns: one of the kinds of memory a person or an agent can list."""

    regex = "(?:" + "|".join(ITEM_KINDS) + ")"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value
