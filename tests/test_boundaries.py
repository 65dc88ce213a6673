"""The boring guarantees, for every endpoint and page at once: a new one inherits them here.

The URL patterns are read from the URLconf, so a pattern this file does not know how to call fails
`test_every_pattern_is_covered` until it is added below. For the agent API: no token is a 401 in
the one error shape; a person the agent may not act for is the same 403 whether they exist or not;
another person's item is the same 404 as a missing one. For "My memory" (/me/): sign-in is required,
and another person's ids are the same 404 as missing ones. For the staff pages (review, staff
erasure): staff only, and each page refuses a staff member without its permission.
"""

import uuid

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from tests.support.boundaries import API, MISSING, NOBODY, STAFF, WITH_ITEM, api_call, page_kwargs, patterns

pytestmark = pytest.mark.django_db

# Pages of /me/ that are public by design, with what a visitor who is not signed in gets: an account deletion's page
# and its receipt, found by their unguessable id (bob's erasure is of one category, so no account deletion), and the
# page that checks a receipt.
PUBLIC = {"governance:account_deleted": 404, "governance:account_deleted_receipt": 404,
          "governance:receipt_verify": 200}


def _names(namespace: str) -> list[str]:
    return list(patterns(namespace))


def test_every_pattern_is_covered():
    assert sorted(_names("memory-api") + _names("knowledge-api")) == sorted(API)
    # /me/ and review patterns are reversed below from their own converters; these are the ones filled.
    converters = {key for p in patterns("governance").values() for key in p.pattern.converters}
    assert converters <= {"kind", "category", "uid", "agent_id", "public_id", "decision"}


@pytest.mark.parametrize("name", sorted(API))
def test_every_api_endpoint_refuses_a_caller_without_a_valid_token(name, db):
    for client in (APIClient(), APIClient(HTTP_AUTHORIZATION="Bearer mp_nothing_here")):
        response = api_call(client, name, user="someone", trace=MISSING, fact=MISSING)
        assert response.status_code == 401, name
        assert set(response.json()) == {"message", "extra"}


@pytest.mark.parametrize("name", sorted(set(API) - NOBODY))
def test_every_api_endpoint_refuses_a_person_it_may_not_act_for_whether_they_exist_or_not(name, people):
    alice, bob = people["alice"], people["bob"]
    real = api_call(alice["api"], name, user=bob["subject"].user_id, trace=bob["trace"], fact=bob["fact"])
    invented = api_call(alice["api"], name, user="nobody-at-all", trace=bob["trace"], fact=bob["fact"])
    assert real.status_code == invented.status_code == 403, name
    assert real.json()["message"] == invented.json()["message"]


@pytest.mark.parametrize("name", sorted(WITH_ITEM))
def test_another_persons_item_is_the_same_404_as_a_missing_one(name, people):
    alice, bob = people["alice"], people["bob"]
    user = alice["subject"].user_id
    guessed = api_call(alice["api"], name, user=user, trace=bob["trace"], fact=bob["fact"])
    missing = api_call(alice["api"], name, user=user, trace=MISSING, fact=MISSING)
    assert guessed.status_code == missing.status_code == 404, name
    assert guessed.json() == missing.json()


def _visit(client, url):
    response = client.get(url)
    return client.post(url) if response.status_code == 405 else response


@pytest.mark.parametrize("name", _names("governance"))
def test_every_page_of_my_memory_needs_sign_in(name, people):
    url = reverse(name, kwargs=page_kwargs(name, people["bob"]))
    response = _visit(Client(), url)
    if name in PUBLIC:
        assert response.status_code == PUBLIC[name], name
    else:
        assert response.status_code == 302 and response.url.startswith("/accounts/login/"), name


WITH_IDS = [name for name, p in patterns("governance").items()
            if set(p.pattern.converters) - {"kind", "category", "decision"}]


@pytest.mark.parametrize("name", WITH_IDS)
def test_another_persons_ids_on_my_memory_are_the_same_404_as_missing_ones(name, people):
    alice, bob = people["alice"], people["bob"]
    kwargs = page_kwargs(name, bob)
    guessed = _visit(alice["page"], reverse(name, kwargs=kwargs))
    missing = _visit(alice["page"], reverse(name, kwargs=page_kwargs(name, None)))
    assert guessed.status_code == missing.status_code == 404, name
    if name not in PUBLIC:
        assert _visit(bob["page"], reverse(name, kwargs=kwargs)).status_code in (200, 302), name


@pytest.mark.parametrize("name", sorted(STAFF))
def test_every_staff_page_is_for_staff_with_its_permission(name, make_subject, staff):
    converters = STAFF[name].pattern.converters
    url = reverse(f"admin:{name}", kwargs={key: uuid.uuid4() if key == "public_id" else "x" for key in converters})
    assert _visit(Client(), url).status_code == 302, name
    person = Client()
    person.force_login(make_subject().account)
    assert _visit(person, url).status_code == 302, name
    _, bare = staff()
    assert _visit(bare, url).status_code == (200 if name == "review_index" else 403), name
