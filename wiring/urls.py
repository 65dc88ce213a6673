from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import TemplateView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from wiring.health import healthz
from wiring.views import api_not_found, favicon

urlpatterns = [
    path("", TemplateView.as_view(template_name="portal/home.html"), name="home"),
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", favicon),
    path("accounts/", include("allauth.urls")),
    path("admin/", admin.site.urls),
    path("me/", include("governance.urls")),
    path("mcp/", include("agents_mcp.urls")),
    path("", include("agents_mcp.oauth_urls")),
    path("api/v1/knowledge/", include("knowledge.api.urls")),
    path("api/v1/", include("memory.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    re_path(r"^api/(?P<path>[\s\S]*)$", api_not_found),
]
