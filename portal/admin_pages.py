"""What apps add to the staff admin site besides their models: pages of their own, listed on the index and its
sidebar as a section, each row only to those its page opens for, with a live count where one helps.

The admin site knows no app: an app registers its section in its admin.py, as it registers its models
(`admin.site.section_register(...)`), and may add a page of its own to another app's section.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib import admin

# What a change list's search reads of the search box: SQLite refuses a LIKE pattern of some thousands.
ADMIN_SEARCH_MAX_CHARS = 200


class BoundedSearchAdmin(admin.ModelAdmin):
    """A model admin whose search reads at most ADMIN_SEARCH_MAX_CHARS of what was typed."""

    def get_search_results(self, request, queryset, search_term):
        return super().get_search_results(request, queryset, search_term[:ADMIN_SEARCH_MAX_CHARS])


@dataclass(frozen=True)
class AdminPage:
    """A row of a section: the page's URL name, the permissions its view requires, and the key of its section's
    counts whose number the row shows (with what the number means)."""

    title: str
    url_name: str
    perms: tuple[str, ...]
    count: str = ""
    counted: str = ""


@dataclass(frozen=True)
class AdminSection:
    """An app's pages on the admin site: listed under `label` as `name`, its own index at the URL named `index`.

    `urls(site)` returns the pages' URL patterns, each behind the site's staff check; `counts(cap=)` the numbers
    the rows show, each counted up to cap + 1 so that the cost stays bounded.
    """

    label: str
    name: str
    index: str
    pages: tuple[AdminPage, ...]
    urls: Callable[..., list]
    counts: Callable[..., dict[str, int]] | None = None
