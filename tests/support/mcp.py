"""An MCP client a person connected: the official client over Streamable HTTP, its tools called, memory seeded
through them; and the OAuth requests a client makes to connect (registration, authorization with PKCE, token)."""

import asyncio
import base64
import contextlib
import hashlib
import json
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from memory import ingest, selectors

REDIRECT = "http://127.0.0.1:33418/callback"
# The PKCE verifier every test authorization uses, and its S256 challenge.
VERIFIER = "v" * 64
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()
EVERYTHING = ["context:read", "messages:write", "traces:write", "memory:correct", "knowledge:read", "memory:forget",
              "history", "long_term", "reasoning"]


@dataclass
class Connected:
    url: str
    token: str
    user_id: str
    agent: object
    subject: object


@contextlib.asynccontextmanager
async def mcp_client(url: str, token: str, *, mode: str = "auto"):
    """The official MCP client over Streamable HTTP, with the token as a static header."""
    # A connection per request: the test server's keep-alive answers wait out the client's delayed ACK (40 ms).
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}", "Connection": "close"},
                                  timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            yield client


def call(person: Connected, name: str, arguments: dict, *, mode: str = "auto"):
    """Call one tool with a fresh client and return its result."""

    async def run():
        async with mcp_client(person.url, person.token, mode=mode) as client:
            return await client.call_tool(name, arguments)

    return asyncio.run(run())


def tool_arguments(uids: dict) -> dict:
    """Arguments each tool accepts, for one person's items (their uids by kind: messages, facts, traces)."""
    return {
        "context_build": {"query": "What is my secret word?"},
        "message_append": {"session_id": "probe", "messages": [{"role": "user", "content": "hello"}]},
        "item_search": {"kind": "facts", "text": "secret"},
        "item_list": {"kind": "facts"},
        "item_get": {"kind": "facts", "uid": uids["facts"]},
        "item_delete": {"kind": "messages", "uid": uids["messages"]},
        "correction_create": {"kind": "facts", "uid": uids["facts"], "object": "LLAMA"},
        "trace_start": {"session_id": "probe", "task": "probe"},
        "trace_step_add": {"trace_uid": uids["traces"], "thought": "probe"},
        "trace_complete": {"trace_uid": uids["traces"], "outcome": "probe", "success": True},
        "knowledge_search": {"profile": "probe", "query": "probe"},
    }


def seed(person: Connected, word: str) -> dict:
    """Write one item of every kind through the tools, extracting as the worker would; return their uids."""
    appended = call(person, "message_append", {"session_id": "shared-session", "messages": [
        {"role": "user", "content": f"My secret word is {word}.", "entities": [{"name": word, "type": "OBJECT"}],
         "facts": [{"subject": "secret word", "predicate": "IS", "object": word}],
         "preferences": [{"category": "secret", "preference": f"likes {word}"}]}]})
    message = appended.structured_content["results"][0]["uid"]
    assert ingest.message_extract(message_uid=message, user_id=person.user_id) == "done"
    trace = call(person, "trace_start", {"session_id": "shared-session", "task": f"remember {word}"})
    uids = {"messages": message, "traces": trace.structured_content["uid"]}
    for kind in ("facts", "preferences", "entities"):
        [item] = selectors.item_list(user_id=person.user_id, kind=kind)["items"]
        uids[kind] = item["uid"]
    return uids


def oauth_register(client, **metadata):
    """Register a public client as an MCP client does (RFC 7591), with `metadata` over the usual fields."""
    body = {"client_name": "Desk assistant", "redirect_uris": [REDIRECT],
            "grant_types": ["authorization_code", "refresh_token"], "token_endpoint_auth_method": "none", **metadata}
    return client.post("/oauth/register/", json.dumps(body), content_type="application/json")


def oauth_authorize(browser, client_id: str, *, allow: bool = False, **params):
    """Open the authorization endpoint in the person's signed-in browser; with `allow`, press Allow on its page and
    return the code, else return the response."""
    query = {"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT, "state": "s",
             "code_challenge": CHALLENGE, "code_challenge_method": "S256", **params}
    page = browser.get(f"/oauth/authorize/?{urlencode(query)}")
    if not allow:
        return page
    form = page.context["form"]
    fields = {name: value for name, value in form.initial.items() if value is not None and name != "allow"}
    answer = browser.post("/oauth/authorize/", {**fields, "allow": "1", "actions": form.fields["actions"].initial,
                                                "categories": form.fields["categories"].initial})
    return parse_qs(urlsplit(answer["Location"]).query)["code"][0]


def oauth_token(client, client_id: str, code: str):
    """Exchange an authorization code for tokens, as the client that asked for it."""
    return client.post("/oauth/token/", {"grant_type": "authorization_code", "code": code, "client_id": client_id,
                                         "redirect_uri": REDIRECT, "code_verifier": VERIFIER})
