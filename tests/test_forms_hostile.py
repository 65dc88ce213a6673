"""Hostile values in every form of every page never give a server error (issue 14 item 7).

Each page of /me/, of the staff review and erasure pages and of the admin (change lists, add forms,
the knowledge profile's "Try a query") is fetched, the names of its form fields are read from its
HTML, and each hostile value is sent in all of them at once, by GET and by POST.
"""

import re
import uuid
from urllib.parse import quote

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import NoReverseMatch, reverse

from knowledge.models import RetrievalProfile
from tests.support.boundaries import STAFF, page_kwargs, patterns

pytestmark = pytest.mark.django_db
# Raw url-encoded values: 60,000 characters (the erasure form's `user` answered 500 to it), NUL with
# control characters and separators, and a lone surrogate's UTF-8 bytes, which no text can hold.
HOSTILE = {"huge": quote("x" * 60_000), "controls": quote("a\x00\x01\x1b[2J\x7f\u2028\r\nb"), "surrogate": "%ED%A0%80"}
FIELD = re.compile(r'<(?:input|textarea|select)\b[^>]*\bname="([^"]+)"')


def _fields(html: str) -> set[str]:
    return set(FIELD.findall(html)) - {"csrfmiddlewaretoken"}


def _hostile_visits(client: Client, url: str) -> list[tuple[str, str, int]]:
    """GET the page, then send each hostile value in each of its fields by GET and POST; return every 5xx."""
    page = client.get(url)
    html = b"" if page.streaming else page.content  # a download has no form
    fields = _fields(html.decode(errors="replace")) or {"q"}
    failures = [("GET", url, page.status_code)] if page.status_code >= 500 else []
    for name, value in HOSTILE.items():
        body = "&".join(f"{quote(field)}={value}" for field in sorted(fields))
        answers = {"GET": client.get(f"{url}?{body}"),
                   "POST": client.post(url, body, content_type="application/x-www-form-urlencoded")}
        failures += [(f"{method} {name}", url, r.status_code) for method, r in answers.items() if r.status_code >= 500]
    return failures


def test_no_form_of_my_memory_answers_5xx_to_hostile_values(people):
    alice = people["alice"]
    client = Client(raise_request_exception=False)
    client.force_login(alice["subject"].account)
    failures = []
    for name in patterns("governance"):
        if name in ("governance:account_delete", "governance:account_deleted"):
            continue  # deleting the account would end the visit; its form is checked on its own below
        failures += _hostile_visits(client, reverse(name, kwargs=page_kwargs(name, alice)))
    failures += _hostile_visits(client, reverse("governance:account_delete"))
    assert failures == []


def test_no_staff_or_admin_form_answers_5xx_to_hostile_values(people):
    bob = people["bob"]
    staff = get_user_model().objects.create_superuser(username="root", email="root@example.com", password="x-pass-1")
    client = Client(raise_request_exception=False)
    client.force_login(staff)
    profile = RetrievalProfile.objects.create(name="hostile-profile")
    values = {"user_id": bob["subject"].user_id, "uid": bob["fact"], "from_uid": "x", "into_uid": "x",
              "public_id": uuid.uuid4(), "object_id": profile.pk, "decision": "approve"}
    urls = [reverse(f"admin:{name}", kwargs={key: values[key] for key in STAFF[name].pattern.converters})
            for name in sorted(STAFF)]
    urls.append(reverse("admin:knowledge_retrievalprofile_try", kwargs={"object_id": profile.pk}))
    for model in admin.site._registry:
        for view in ("changelist", "add"):
            try:
                urls.append(reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}"))
            except NoReverseMatch:
                continue
    failures = []
    for url in urls:
        failures += _hostile_visits(client, url)
    assert failures == []
