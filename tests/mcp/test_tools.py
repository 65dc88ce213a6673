"""Every agent API operation is a tool of the MCP server, answered as the API answers it, through the official
MCP client over HTTP against the live portal, in both eras of the protocol."""

import asyncio

import pytest
from django.urls import get_resolver
from rest_framework.test import APIClient

from agents_mcp.tools import TOOLS
from memory import services as memory_services
from memory.models import MemoryAccessItem
from portal.models import AuditEvent
from tests.support.mcp import EVERYTHING, call, mcp_client, seed

METHODS = ("get", "post", "put", "patch", "delete")


def _api_operations() -> set[tuple[str, str]]:
    """Return (URL name, method) of every operation of the agent API, read from the URLconf."""
    found = set()
    for namespace in ("memory-api", "knowledge-api"):
        _, resolver = get_resolver().namespace_dict[namespace]
        for pattern in resolver.url_patterns:
            view = pattern.callback.view_class
            found |= {(f"{namespace}:{pattern.name}", method) for method in METHODS if hasattr(view, method)}
    return found


def test_every_operation_of_the_agent_api_is_a_tool():
    assert {(tool.route, tool.method) for tool in TOOLS} == _api_operations()
    assert len(TOOLS) == len(_api_operations()) == 11


def _rest(person, method: str, path: str, body=None):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {person.token}")
    return getattr(api, method)(path, body, format="json")


def test_each_tool_answers_what_its_operation_answers(connect):
    person = connect()
    uids = seed(person, "ALPACA")
    me = person.user_id
    pairs = [  # (tool, arguments, the same request to the API)
        ("item_list", {"kind": "facts"}, ("get", f"/api/v1/users/{me}/facts/")),
        ("item_get", {"kind": "preferences", "uid": uids["preferences"]},
         ("get", f"/api/v1/users/{me}/preferences/{uids['preferences']}")),
        ("item_search", {"kind": "messages", "text": "secret word"},
         ("get", f"/api/v1/users/{me}/messages/search?text=secret+word")),
        ("item_get", {"kind": "facts", "uid": "no-such-fact"}, ("get", f"/api/v1/users/{me}/facts/no-such-fact")),
        ("knowledge_search", {"profile": "nothing", "query": "x"},
         ("post", "/api/v1/knowledge/search", {"profile": "nothing", "query": "x"})),
        ("context_build", {"session_id": "s2", "query": "What is my secret word?", "messages": [{"role": "user"}]},
         ("post", "/api/v1/context", {"user_id": me, "session_id": "s2", "query": "What is my secret word?",
                                      "messages": [{"role": "user"}]})),
    ]
    for name, arguments, (method, path, *body) in pairs:
        result = call(person, name, arguments)
        expected = _rest(person, method, path, *body)
        if expected.status_code < 400:
            assert not result.is_error and result.structured_content == expected.json(), name
        else:
            assert result.is_error and result.structured_content is None, name
            assert asyncio.run(_text(result)) == {"status": expected.status_code, **expected.json()}, name

    context = call(person, "context_build", {"session_id": "s2", "query": "What is my secret word?"})
    assert "ALPACA" in context.structured_content["context"]
    memory_services.access_queue_drain()
    assert {row.uid for row in MemoryAccessItem.objects.filter(subject=person.subject)} >= {
        item["id"] for item in context.structured_content["items"]}


async def _text(result):
    import json

    return json.loads(result.content[0].text)


def test_traces_corrections_and_forgetting_leave_their_records(connect):
    person = connect()
    uids = seed(person, "BISON")
    step = call(person, "trace_step_add", {"trace_uid": uids["traces"], "thought": "look it up", "tool_calls": [
        {"tool_name": "search", "arguments": {"q": "BISON"}, "result": ["found"], "status": "success"}]})
    assert step.structured_content["order"] == 1
    done = call(person, "trace_complete", {"trace_uid": uids["traces"], "outcome": "found", "success": True})
    assert done.structured_content == {"uid": uids["traces"], "completed": True}

    proposed = call(person, "correction_create", {"kind": "facts", "uid": uids["facts"], "object": "YAK",
                                                   "reason": "It changed."})
    assert proposed.structured_content["status"] == "proposed"  # the person decides

    forgotten = call(person, "item_delete", {"kind": "preferences", "uid": uids["preferences"]})
    assert forgotten.structured_content["deleted"] >= 1
    again = call(person, "item_get", {"kind": "preferences", "uid": uids["preferences"]})
    assert again.is_error and "No preference with that id." in again.content[0].text
    actions = set(AuditEvent.objects.values_list("action", flat=True))
    assert {"correction.propose", "preference.delete", "client.connect", "grant.create"} <= actions


def test_a_client_sees_only_the_tools_it_was_allowed_and_the_api_refuses_the_others(connect):
    person = connect(["context:read", "history"])

    async def scenario():
        async with mcp_client(person.url, person.token) as client:
            tools = [tool.name for tool in (await client.list_tools()).tools]
            refused = await client.call_tool("message_append", {"session_id": "s1", "messages": [
                {"role": "user", "content": "hello"}]})
            return tools, refused

    tools, refused = asyncio.run(scenario())
    assert tools == ["context_build", "item_search", "item_list", "item_get"]
    assert refused.is_error and "This agent lacks the 'messages:write' scope." in refused.content[0].text
    context = call(person, "context_build", {"query": "hello"})
    assert context.structured_content["categories"] == ["history"]  # what the person consented to


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_both_eras_of_the_protocol_list_tools_resources_and_call(connect, mode):
    person = connect()
    uids = seed(person, "CAMEL")

    async def scenario():
        async with mcp_client(person.url, person.token, mode=mode) as client:
            tools = await client.list_tools()
            resources = await client.list_resources()
            facts = await client.read_resource("memory://facts")
            fact = await client.read_resource(f"memory://facts/{uids['facts']}")
            context = await client.call_tool("context_build", {"query": "What is my secret word?"})
            return client.protocol_version, tools, resources, facts, fact, context

    version, tools, resources, facts, fact, context = asyncio.run(scenario())
    assert version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    assert len(tools.tools) == len(EVERYTHING) + 2  # 11 tools: every action scope was approved
    schema = {tool.name: tool.input_schema for tool in tools.tools}["context_build"]
    assert "user_id" not in schema["required"] and schema["properties"]["token_budget"]["maximum"] == 16000
    assert [r.uri for r in resources.resources] == [f"memory://{kind}" for kind in
                                                    ("messages", "facts", "preferences", "entities", "traces")]
    assert "CAMEL" in facts.contents[0].text and uids["facts"] in fact.contents[0].text
    assert "CAMEL" in context.structured_content["context"]
