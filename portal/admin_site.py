from django.contrib import admin
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import redirect


class PortalAdminSite(admin.AdminSite):
    """The staff admin site; sign-in goes through allauth so MFA applies to staff too."""

    site_header = "Memory portal administration"
    site_title = "Memory portal"
    index_title = "Governance"

    def login(self, request, extra_context=None):
        if request.user.is_authenticated and not self.has_permission(request):
            return redirect("home")
        return redirect_to_login(request.GET.get("next", request.get_full_path()))

    def get_urls(self):
        from review.urls import review_urls

        return review_urls(self) + super().get_urls()
