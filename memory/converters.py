from memory.kinds import BY_NAME


class KindConverter:
    """`<kind:kind>` in URL patterns: one of the kinds of memory a person or an agent can list."""

    regex = "(?:" + "|".join(BY_NAME) + ")"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value
