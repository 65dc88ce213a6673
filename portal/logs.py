"""What the portal's own logs may hold: never a person's words."""

import logging
import re

_QUERY = re.compile(r"\?[^ ]*")


class QueryStringsOut(logging.Filter):
    """Drop the query string from the request lines a development server logs (django.server): a search's query
    string carries the person's words, and a log is no place for them (docs/erasure.md)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and record.args and isinstance(record.args[0], str):
            record.args = (_QUERY.sub("", record.args[0], count=1), *record.args[1:])
        return True
