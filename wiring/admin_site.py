"""The staff admin site. It knows no app: apps register their models and their sections of pages with it."""

from django.apps import apps as django_apps
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import redirect
from django.urls import reverse
from neo4j.exceptions import ServiceUnavailable, SessionExpired

from portal.admin_pages import AdminPage, AdminSection

# Counts above this show as "999+": the admin lists the apps on every page, so their cost stays bounded.
SECTION_COUNT_CAP = 999


class PortalAdminSite(admin.AdminSite):
    """The staff admin site; sign-in goes through allauth so MFA applies to staff too."""

    site_header = "Memory portal administration"
    site_title = "Memory portal"
    index_title = "Governance"
    # Tables get the page's width; a section's pages are listed in a menu of their own (review/base.html).
    enable_nav_sidebar = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._sections: dict[str, AdminSection] = {}
        self._pages_added: dict[str, list[AdminPage]] = {}

    def section_register(self, section: AdminSection) -> None:
        """List an app's pages as a section of the index and the sidebar, and serve them under the site."""
        self._sections[section.label] = section

    def section_page_add(self, label: str, page: AdminPage) -> None:
        """Add a page of another app's to the section listed under `label`, after the section's own."""
        self._pages_added.setdefault(label, []).append(page)

    def section_pages(self, label: str) -> tuple[AdminPage, ...]:
        """Return the rows of the section listed under `label`: its own pages, then those others added."""
        return self._sections[label].pages + tuple(self._pages_added.get(label, ()))

    def login(self, request, extra_context=None):
        if request.user.is_authenticated and not self.has_permission(request):
            return redirect("home")
        return redirect_to_login(request.GET.get("next", request.get_full_path()))

    def get_urls(self):
        return [url for section in self._sections.values() for url in section.urls(self)] + super().get_urls()

    def _build_app_dict(self, request, label=None):
        """Add each section, as an app whose rows are its pages, to the index and the sidebar."""
        app_dict = super()._build_app_dict(request, label)
        if label is not None:
            return app_dict
        for section in self._sections.values():
            pages = [page for page in self.section_pages(section.label) if request.user.has_perms(page.perms)]
            if not pages:
                continue
            counts = self._section_counts(request, section) if any(page.count for page in pages) else {}
            app_dict[section.label] = {
                "name": section.name,
                "app_label": section.label,
                "app_url": reverse(f"admin:{section.index}", current_app=self.name),
                "has_module_perms": True,
                "models": [self._section_row(page, counts) for page in pages],
            }
        return app_dict

    def get_app_list(self, request, app_label=None):
        """List the sections first (the staff's work, in the order their apps gave), then the portal's own apps, then
        the libraries' (sign-in, two-factor, OAuth), each group by name."""
        apps = super().get_app_list(request, app_label)
        for app in apps:
            if app["app_label"] in self._sections:
                order = [page.url_name for page in self.section_pages(app["app_label"])]
                app["models"].sort(key=lambda row: order.index(row["object_name"]))
        own = {config.label for config in django_apps.get_app_configs()
               if (settings.BASE_DIR / config.name.split(".")[0]).is_dir()}
        return sorted(apps, key=lambda app: (app["app_label"] not in self._sections, app["app_label"] not in own))

    def _section_row(self, page: AdminPage, counts: dict) -> dict:
        name = page.title
        if page.count in counts:
            number = f"{SECTION_COUNT_CAP}+" if counts[page.count] > SECTION_COUNT_CAP else counts[page.count]
            name += " (" + f"{number} {page.counted}".strip() + ")"
        return {"model": None, "name": name, "object_name": page.url_name,
                "admin_url": reverse(f"admin:{page.url_name}", current_app=self.name), "add_url": None,
                "view_only": True, "perms": {"add": False, "change": False, "delete": False, "view": True}}

    def _section_counts(self, request, section: AdminSection) -> dict:
        """Read a section's counts once per request (the index and its sidebar both list the apps); none if Neo4j
        is down."""

        if not hasattr(request, "admin_section_counts"):
            request.admin_section_counts = {}
        cache = request.admin_section_counts
        if section.label not in cache:
            try:
                cache[section.label] = section.counts(cap=SECTION_COUNT_CAP) if section.counts else {}
            except (ServiceUnavailable, SessionExpired):
                cache[section.label] = {}
        return cache[section.label]
