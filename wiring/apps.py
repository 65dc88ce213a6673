from django.apps import AppConfig
from django.contrib.admin.apps import AdminConfig


class PortalAdminConfig(AdminConfig):
    default_site = "wiring.admin_site.PortalAdminSite"


class WiringConfig(AppConfig):
    """The wiring as an app: its management commands are those that span apps."""

    name = "wiring"
