from django.contrib import admin
from django.urls import include, path
from django.views.generic import TemplateView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from portal.health import healthz

urlpatterns = [
    path("", TemplateView.as_view(template_name="portal/home.html"), name="home"),
    path("healthz", healthz, name="healthz"),
    path("accounts/", include("allauth.urls")),
    path("admin/", admin.site.urls),
    path("me/", include("governance.urls")),
    path("api/v1/knowledge/", include("knowledge.api.urls")),
    path("api/v1/", include("memory.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]
