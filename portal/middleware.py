"""Refuse form and query values that no database can store, before a view queries with them; answer what is
not found without Django's debug page; read the reader's time zone."""

from urllib.parse import unquote
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.http import Http404, HttpResponseBadRequest, JsonResponse
from django.urls import Resolver404
from django.utils import timezone
from django.views.defaults import page_not_found


class NulCharacterRefusal:
    """Answer 400 to a request whose parameters hold a NUL character (PostgreSQL refuses them), before its view
    queries with them.

    The API refuses them itself, in its own error shape, so /api/ is left to it; a view whose clients read
    another shape (an OAuth endpoint's JSON) names its answer with a `nul_refusal` method of its class.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if request.path.startswith("/api/") or not _has_nul(request):
            return None
        refusal = getattr(getattr(view_func, "view_class", None), "nul_refusal", None)
        if refusal:
            return refusal()
        return HttpResponseBadRequest("A value holds a NUL character, which cannot be stored.")


def _has_nul(request) -> bool:
    params = [request.GET]
    if request.method == "POST" and request.content_type in ("application/x-www-form-urlencoded",
                                                             "multipart/form-data"):
        params.append(request.POST)
    return any("\x00" in value for query in params for _, values in query.lists() for value in values)


class NotFoundAnswer:
    """Answer what is not found with the portal's own 404, whatever DEBUG says.

    With DEBUG on, Django's 404 page lists every URL pattern; it is shown for a URL no pattern matches
    (a path segment holding a newline, say) and for a page view's Http404. Instead, a URL under /api/
    gets the API's JSON error and any other the portal's "Not found" page. The API's own views answer
    their 404s themselves.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code == 404 and request.resolver_match is None:
            return _not_found(request, Resolver404({"path": request.path_info}))
        return response

    def process_exception(self, request, exception):
        return _not_found(request, exception) if isinstance(exception, Http404) else None


def _not_found(request, exception):
    if request.path.startswith("/api/"):
        return JsonResponse({"message": "No API endpoint at this path.", "extra": {"path": request.path}},
                            status=404)
    return page_not_found(request, exception)


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
