"""gunicorn's own answers in the portal's one error shape, and its workers warmed before they serve.

gunicorn answers some requests before Django sees them (a request line longer than
`limit_request_line`, headers too large, a line it cannot parse) with an HTML page of its own.
`gunicorn.conf.py` calls `errors_as_json` so that those answers, on /api/ or anywhere, are the
same `{"message", "extra"}` JSON as every other error.
"""

import gc
import json

from django.urls import get_resolver
from gunicorn import util

from memory.embeddings import get_embedder

# What each status gunicorn answers with means to the caller; gunicorn's own text follows it.
MESSAGES = {
    400: "The request could not be read",
    403: "The request was refused",
    414: "The URL is too long",
    417: "The Expect header cannot be met",
    431: "The request's headers are too large",
    500: "The server failed before the request reached the portal",
    501: "The transfer coding is not supported",
}


def error_write(sock, status_int: int, reason: str, mesg: str) -> None:
    """Write one of gunicorn's error answers as the portal's JSON error (util.write_error's signature)."""
    message = MESSAGES.get(status_int, reason) + (f" ({mesg})" if mesg else "") + "; nothing was read or stored."
    body = json.dumps({"message": message, "extra": {"status": status_int}}).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    util.write_nonblock(sock, head.encode("latin1") + body)


def errors_as_json() -> None:
    """Make gunicorn write its error answers with error_write (its workers look the function up per error)."""
    util.write_error = error_write


def worker_warm() -> None:
    """Load what every request uses (every app's URLs and views, the encoder's model) before the worker serves,
    then move all of it out of the garbage collector's reach: a full collection no longer walks the model's
    and the frameworks' objects, which never become garbage (a collection fell on an MCP call's p95 otherwise)."""
    get_resolver().url_patterns  # noqa: B018 - imports every URLconf and its views
    get_embedder()
    gc.freeze()
