"""Views of the project itself, outside any app."""

from django.shortcuts import redirect
from django.templatetags.static import static
from drf_spectacular.utils import extend_schema
from rest_framework.decorators import api_view, authentication_classes, permission_classes

from portal.exceptions import NotFound


@extend_schema(exclude=True)
@api_view(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])
@authentication_classes([])
@permission_classes([])
def api_not_found(request, path: str = ""):
    """Answer an unknown path under /api/ in the API's own error shape, not Django's HTML page."""
    raise NotFound("No API endpoint at this path.", {"path": request.path})


def favicon(request):
    """Send a browser that asks for /favicon.ico on its own (every page, the API docs) to the portal's icon."""
    return redirect(static("portal/favicon.svg"))
