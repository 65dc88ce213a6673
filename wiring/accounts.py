"""Where allauth sends a person after sign-in."""

from allauth.account.adapter import DefaultAccountAdapter
from django.urls import reverse


class AccountAdapter(DefaultAccountAdapter):
    def get_login_redirect_url(self, request):
        """Send staff to the admin index and everyone else to "My memory"; allauth honours a safe ?next= first."""
        return reverse("admin:index" if request.user.is_staff else "governance:overview")
