"""The API's JSON parser: bodies too deep to walk or holding text that is not Unicode are a 400."""

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

# No API field nests this deep; tool-call arguments, the deepest free-form part, get plenty of room.
MAX_DEPTH = 64


def body_problem(data) -> str | None:
    """Return where `data` nests deeper than MAX_DEPTH or holds an unpaired surrogate, else None."""
    stack = [("", data, 1)]
    while stack:
        path, value, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"{path or 'the body'} nests deeper than {MAX_DEPTH} levels"
        if isinstance(value, dict):
            items = list(value.items())
            for key, _ in items:
                if not _encodable(key):
                    return f"a field name in {path or 'the body'} is not valid Unicode (an unpaired surrogate)"
            stack.extend((f"{path}.{key}" if path else key, item, depth + 1) for key, item in items)
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", item, depth + 1) for i, item in enumerate(value))
        elif isinstance(value, str) and not _encodable(value):
            return f"{path or 'the body'} is not valid Unicode (an unpaired surrogate)"
    return None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class StrictJSONParser(JSONParser):
    """JSON as DRF parses it, refusing what would later fail deep inside validation or rendering."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(f"JSON parse error - the body nests deeper than {MAX_DEPTH} levels.") from None
        problem = body_problem(data)
        if problem:
            raise ParseError(f"JSON parse error - {problem}.")
        return data
