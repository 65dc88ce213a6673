"""Accounts and groups on the admin site, as Django registers them, made readable and accessible.

Django's filter_horizontal widget labels its icons in a way screen readers ignore, and its split date
and time inputs have no label of their own; a plain multiple choice and read-only times have neither problem.
"""

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group

User = get_user_model()
admin.site.unregister(User)
admin.site.unregister(Group)


@admin.register(User)
class PortalUserAdmin(UserAdmin):
    filter_horizontal = ()
    readonly_fields = ("last_login", "date_joined")


@admin.register(Group)
class PortalGroupAdmin(GroupAdmin):
    filter_horizontal = ()
