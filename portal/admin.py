"""Accounts, groups and two-factor devices on the admin site, as their apps register them, made accessible.

Django's filter_horizontal widget labels its icons in a way screen readers ignore, and a split date and
time input has no label of its own: a plain multiple choice, and read-only times (which no one should
edit anyway), have neither problem.
"""

from allauth.mfa.admin import AuthenticatorAdmin
from allauth.mfa.models import Authenticator
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group

User = get_user_model()
for model in (User, Group, Authenticator):
    admin.site.unregister(model)


@admin.register(User)
class PortalUserAdmin(UserAdmin):
    filter_horizontal = ()
    readonly_fields = ("last_login", "date_joined")


@admin.register(Group)
class PortalGroupAdmin(GroupAdmin):
    filter_horizontal = ()


@admin.register(Authenticator)
class PortalAuthenticatorAdmin(AuthenticatorAdmin):
    readonly_fields = ("created_at", "last_used_at")
