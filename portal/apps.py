from django.apps import AppConfig
from django.contrib.admin.apps import AdminConfig


class PortalAdminConfig(AdminConfig):
    default_site = "portal.admin_site.PortalAdminSite"


class PortalConfig(AppConfig):
    name = "portal"

    def ready(self):
        from portal import graphdb

        graphdb.configure()
