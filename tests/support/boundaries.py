"""Two people with memory in every store, how an agent calls each API endpoint, and the URL patterns read from the
URLconf, for the boundary checks every endpoint and page inherits (tests/test_boundaries.py, tests/test_forms_hostile.py,
tests/portal/test_outages.py)."""

import uuid

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import get_resolver

from governance import services as governance_services
from memory import ingest, services
from memory.models import HeldMemory
from memory.selectors import item_list
from review.urls import review_urls
from tests.support.api import say

MISSING = "no-such-id"

# How an agent calls each API endpoint: method, path (with {trace} and {fact} of the person named by
# {user}) and body (with {user}); None where the endpoint serves no one person.
API = {
    "memory-api:context": ("post", "/api/v1/context", {"user_id": "{user}", "query": "hello"}),
    "memory-api:message_append": ("post", "/api/v1/conversations/s1/messages",
                                  {"user_id": "{user}", "messages": [{"role": "user", "content": "hello"}]}),
    "memory-api:trace_start": ("post", "/api/v1/traces", {"user_id": "{user}", "session_id": "s1", "task": "t"}),
    "memory-api:trace_step_add": ("post", "/api/v1/traces/{trace}/steps", {"user_id": "{user}", "thought": "t"}),
    "memory-api:trace_complete": ("post", "/api/v1/traces/{trace}/complete",
                                  {"user_id": "{user}", "outcome": "done", "success": True}),
    "memory-api:item_list": ("get", "/api/v1/users/{user}/facts/", None),
    "memory-api:item_search": ("get", "/api/v1/users/{user}/facts/search?text=x", None),
    "memory-api:item_detail": ("get", "/api/v1/users/{user}/facts/{fact}", None),
    "memory-api:correction_create": ("post", "/api/v1/users/{user}/facts/{fact}/corrections", {"object": "Oslo"}),
    "knowledge-api:search": ("post", "/api/v1/knowledge/search", {"profile": "any", "query": "hello"}),
}
NOBODY = {"knowledge-api:search"}
WITH_ITEM = {"memory-api:trace_step_add", "memory-api:trace_complete", "memory-api:item_detail",
             "memory-api:correction_create"}


def api_call(client, name: str, **mapping):
    """Call the API endpoint `name` as API says, with {user}, {trace} and {fact} filled from `mapping`."""
    method, path, body = API[name]
    return getattr(client, method)(_fill(path, mapping), _fill(body, mapping) if body else None, format="json")


def _fill(value, mapping: dict):
    if isinstance(value, str):
        return value.format(**mapping)
    if isinstance(value, dict):
        return {k: _fill(v, mapping) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, mapping) for v in value]
    return value


def patterns(namespace: str) -> dict:
    _, resolver = get_resolver().namespace_dict[namespace]
    return {f"{namespace}:{p.name}": p for p in resolver.url_patterns}


@pytest.fixture
def people(make_subject, make_agent, api_for):
    """Alice and Bob, each with an agent of their own and memory written through the API and the worker's step."""
    found = {}
    for name in ("alice", "bob"):
        subject = make_subject()
        agent, secret = make_agent()
        services.grant_create(subject=subject, agent=agent)
        api = api_for(secret)
        message = say(api, subject.user_id, f"Moved to {name}ville.", facts=[
            {"subject": "user", "predicate": "RESIDES_AT", "object": f"{name}ville", "valid_from": "2024-06-01"}])
        trace = api.post("/api/v1/traces", {"user_id": subject.user_id, "session_id": "s1", "task": "look"},
                         format="json").json()["uid"]
        planted = api.post("/api/v1/conversations/s1/messages", {"user_id": subject.user_id, "messages": [
            {"role": "assistant", "content": "Noted.", "facts": [
                {"subject": "user", "predicate": "HAS_PHONE", "object": "+44 20 7946 0000"}]}]},
            format="json").json()["results"][0]["uid"]
        assert ingest.message_extract(message_uid=planted, user_id=subject.user_id) == "held"
        page = Client()
        page.force_login(subject.account)
        export = governance_services.export_build(
            job_id=governance_services.export_request(subject=subject).pk)
        erasure = governance_services.erasure_request(subject=subject, scope="category", category="reasoning")
        fact = item_list(user_id=subject.user_id, kind="facts")["items"][0]["uid"]
        conversation = page.get("/me/conversations/").context["conversations"][0]["uid"]
        correction = api.post(f"/api/v1/users/{subject.user_id}/facts/{fact}/corrections",
                              {"object": f"{name}town"}, format="json").json()["correction"]
        found[name] = {"subject": subject, "agent": agent, "api": api, "page": page, "message": message,
                       "trace": trace, "fact": fact, "conversation": conversation, "export": export.public_id,
                       "erasure": erasure.public_id, "correction": correction,
                       "held": HeldMemory.objects.get(subject=subject).public_id}
    return found


def page_kwargs(name: str, owner: dict | None) -> dict:
    """Fill a /me/ pattern's parameters with the owner's real ids, or with missing ones when owner is None."""
    pattern = patterns("governance")[name]
    values = {"kind": "facts", "category": "history", "decision": "approve"}
    if owner is None:
        values |= {"uid": MISSING, "agent_id": "no-such-agent", "public_id": uuid.uuid4()}
    else:
        erasure = name in ("governance:erasure_detail", "governance:account_deleted", "governance:erasure_receipt",
                           "governance:account_deleted_receipt")
        public_id = ("correction" if "correction" in name else "erasure" if erasure else "held" if "held" in name
                     else "export")
        values |= {"uid": owner["conversation"] if "conversation" in name else owner["fact"],
                   "agent_id": owner["agent"].agent_id, "public_id": owner[public_id]}
    return {key: values[key] for key in pattern.pattern.converters}


# Staff pages: every review page, and the staff erasure the governance admin adds.
STAFF = {p.name: p for p in review_urls(admin.site)} | {
    p.name: p for model_admin in admin.site._registry.values() for p in model_admin.get_urls()
    if p.name and p.name.startswith("governance_") and not p.name.startswith("governance_erasurejob_")}
