"""Every door answers in its own words while a store is out: the relational database held by another writer, Neo4j
unreachable, the app's Redis stopped, in turn. Every call of the agent API, every MCP tool and the endpoints an OAuth
client calls get JSON, never a 500; a 503 names the store and says when to retry (Retry-After), and what it refused
left the memory graph as it was (issue 41)."""

import json

import pytest
from django.test import Client
from neomodel import db

from agents_mcp.tools import NOBODY
from memory.selectors import item_list
from tests.support.api import say
from tests.support.boundaries import API, api_call
from tests.support.mcp import oauth_register, tool_arguments
from tests.support.stack import MARKER, database_locked, neo4j_unreachable

pytestmark = pytest.mark.django_db(transaction=True)  # the lock is taken from another connection
JSON_RPC_HEADERS = {"HTTP_ACCEPT": "application/json, text/event-stream"}


@pytest.fixture
def person(granted):
    """A person with a message, a fact and a trace, their agent's token, and a client registered for OAuth."""
    subject, _, api = granted
    api.raise_request_exception = False  # a server error is an answer to count, not an exception to stop at
    user = subject.user_id
    message = say(api, user, "I live in Lisbon.",
                  facts=[{"subject": "user", "predicate": "RESIDES_AT", "object": "Lisbon"}])
    trace = api.post("/api/v1/traces", {"user_id": user, "session_id": "s1", "task": "find a flat"}, format="json")
    uids = {"messages": message, "facts": item_list(user_id=user, kind="facts")["items"][0]["uid"],
            "traces": trace.json()["uid"]}
    return {"user": user, "api": api, "uids": uids, "authorization": api._credentials["HTTP_AUTHORIZATION"],
            "client_id": oauth_register(Client()).json()["client_id"]}


def _calls(person) -> dict:
    """Return every call to make, by name: each API operation, each MCP tool, each OAuth endpoint a client calls."""
    api, user, uids = person["api"], person["user"], person["uids"]
    calls = {name: (lambda name=name: api_call(api, name, user=user, trace=uids["traces"], fact=uids["facts"]))
             for name in API}
    calls["memory-api:item_delete"] = lambda: api.delete(f"/api/v1/users/{user}/facts/{uids['facts']}")
    for tool, arguments in tool_arguments(uids).items():
        arguments = arguments if tool in NOBODY else {**arguments, "user_id": user}  # the agent is connected to no one
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
        calls[f"mcp:{tool}"] = lambda body=body: Client(raise_request_exception=False).post(
            "/mcp/", body, content_type="application/json", HTTP_AUTHORIZATION=person["authorization"],
            **JSON_RPC_HEADERS)
    oauth = Client(raise_request_exception=False)
    calls["oauth:register"] = lambda: oauth_register(oauth)
    calls["oauth:token"] = lambda: oauth.post("/oauth/token/", {"grant_type": "authorization_code", "code": "x",
                                                                    "client_id": person["client_id"]})
    calls["oauth:revoke"] = lambda: oauth.post("/oauth/revoke_token/", {"token": "x", "client_id": person["client_id"]})
    return calls


def _graph() -> list:
    rows, _ = db.cypher_query(f"MATCH (n) WHERE NOT n:{MARKER} RETURN labels(n), properties(n) ORDER BY elementId(n)")
    return rows


def _problems(person, service: str, *, graph: bool = True) -> list[tuple[str, str]]:
    """Make every call and return what each answered wrong: not JSON, a server error, a 503 in another shape or
    without Retry-After, or a refusal that changed the graph."""
    problems = []
    for name, call in _calls(person).items():
        before = _graph() if graph else None
        response = call()
        status, body = response.status_code, response.json() if "json" in response.get("Content-Type", "") else None
        if body is None or status >= 500 and status != 503:
            problems.append((name, f"{status} {response.content[:200]}"))
            continue
        refused = status
        if name.startswith("mcp:") and status == 200:
            if "error" in body:  # a JSON-RPC protocol error: the tool layer let an exception through
                problems.append((name, json.dumps(body)[:300]))
                continue
            if body["result"].get("isError"):
                body = json.loads(body["result"]["content"][0]["text"])
                refused = body["status"]
                if refused >= 500 and refused != 503:
                    problems.append((name, f"tool error {json.dumps(body)[:200]}"))
                    continue
        if refused == 503:
            if name.startswith("oauth:"):
                shaped = body.get("error") == "temporarily_unavailable" and "Retry-After" in response
            else:
                shaped = body.get("extra", {}).get("service") == service and (
                    "Retry-After" in response or name.startswith("mcp:"))
            if not shaped:
                problems.append((name, f"503 {json.dumps(body)[:200]}"))
            if graph and _graph() != before:
                problems.append((name, "refused, yet the graph changed"))
    return problems


def test_with_the_database_held_by_another_writer_every_door_answers_json(person):
    with database_locked():
        problems = _problems(person, "database")
    assert problems == [], "\n".join(map(str, problems))


def test_with_neo4j_unreachable_every_door_answers_json(person):
    with neo4j_unreachable():
        problems = _problems(person, "neo4j", graph=False)
    assert problems == [], "\n".join(map(str, problems))


def test_with_the_app_redis_down_every_door_answers_json(app_redis_server, person):
    app_redis_server.kill()
    problems = _problems(person, "redis")
    assert problems == [], "\n".join(map(str, problems))
