"""An MCP client a person connected: the official client over Streamable HTTP, its tools called, memory seeded
through them."""

import asyncio
import contextlib
from dataclasses import dataclass

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from memory import ingest, selectors

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
