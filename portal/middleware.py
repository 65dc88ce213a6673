"""Refuse form and query values that no database can store, before a view queries with them; read the
reader's time zone."""

from urllib.parse import unquote
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.http import HttpResponseBadRequest
from django.utils import timezone


class NulCharacterRefusal:
    """Answer 400 to a page request whose parameters hold a NUL character (PostgreSQL refuses them).

    The API refuses them itself, in its own error shape, so /api/ is left to it.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path.startswith("/api/") and _has_nul(request):
            return HttpResponseBadRequest("A value holds a NUL character, which cannot be stored.")
        return self.get_response(request)


def _has_nul(request) -> bool:
    params = [request.GET]
    if request.method == "POST" and request.content_type in ("application/x-www-form-urlencoded",
                                                             "multipart/form-data"):
        params.append(request.POST)
    return any("\x00" in value for query in params for _, values in query.lists() for value in values)


class ReaderTimeZone:
    """Show times in the reader's time zone, which their browser names in the `tz` cookie (static/portal/portal.js)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        zone = _zone(unquote(request.COOKIES.get("tz", "")))
        if zone is None:
            timezone.deactivate()
        else:
            timezone.activate(zone)
        return self.get_response(request)


def _zone(name: str) -> ZoneInfo | None:
    if not name or len(name) > 64:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None
