"""How neo4j-agent-memory's own records name a person: the names its User's attributes give, compared folded."""

import json
import re

WORD = re.compile(r"\w+")
# The attributes of a NAM user (upsert_user takes any) that hold the person's name.
NAME_ATTRIBUTES = ("display_name", "name", "full_name")


def folded(text: str) -> str:
    """Return a text's words, case folded, one space apart: how a name is compared wherever it is written."""
    return " ".join(WORD.findall(text.casefold()))


def person_names(attributes: str | None) -> set[str]:
    """Return the names a NAM user's attributes (NAM's attributes_json) give the person."""

    try:
        found = json.loads(attributes or "{}")
    except ValueError:
        return set()
    return {found[key] for key in NAME_ATTRIBUTES
            if isinstance(found, dict) and isinstance(found.get(key), str) and folded(found[key])}
