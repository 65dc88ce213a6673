"""Isolation and hostile input through the MCP server: another person's id is refused exactly as the API refuses
it, their items are the same error as missing ones, and no probe, through tool arguments or the raw protocol,
answers with a server error or with another person's memory."""

import asyncio
import json

import httpx2
from rest_framework.test import APIClient

from agents_mcp.tools import BY_NAME, NOBODY, input_schemas
from memory.models import AgentToken
from tests.support.mcp import call, mcp_client, seed, tool_arguments

MISSING = "no-such-id"
# A value of every JSON type, and text a store or a path could choke on (a lone surrogate, which the client
# cannot send, goes in a raw request below).
HOSTILE = [None, -1, 10**30, True, [], {"$ref": "#/x"}, "", "\x00", "../../etc/passwd", "x" * 100_000,
           json.loads("[" * 200 + "]" * 200)]


def _body(result) -> dict:
    return json.loads(result.content[0].text)


def test_another_persons_id_and_items_are_refused_exactly_as_the_api_refuses_them(connect):
    alice, bob = connect(), connect()
    seed(alice, "ALPACA")
    theirs = seed(bob, "BUFFALO")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {alice.token}")
    expected = api.post("/api/v1/context", {"user_id": bob.user_id, "query": "x"}, format="json").json()["message"]

    async def scenario():
        refused, guessed = {}, {}
        async with mcp_client(alice.url, alice.token) as client:
            for name, arguments in tool_arguments(theirs).items():
                if name in NOBODY:
                    continue
                refused[name] = [_body(await client.call_tool(name, {**arguments, "user_id": who}))
                                 for who in (bob.user_id, "nobody-at-all")]
                item_args = [arg for arg in ("uid", "trace_uid") if arg in arguments]
                if item_args:
                    guessed[name] = [_body(await client.call_tool(name, {**arguments, **{a: uid for a in item_args}}))
                                     for uid in (arguments[item_args[0]], MISSING)]
        return refused, guessed

    refused, guessed = asyncio.run(scenario())
    for name, (real, invented) in refused.items():
        assert real["status"] == invented["status"] == 403 and real["message"] == invented["message"] == expected, name
    for name, (theirs_, missing) in guessed.items():
        assert theirs_ == missing and theirs_["status"] == 404, name
    assert set(refused) == set(BY_NAME) - NOBODY and len(guessed) == 5


def test_hostile_arguments_and_messages_get_errors_never_a_server_error_or_a_leak(connect):
    alice, bob = connect(), connect()
    mine = seed(alice, "ALPACA")
    seed(bob, "BUFFALO")
    schemas = input_schemas()
    outcomes = []

    async def tool_probes():
        async with mcp_client(alice.url, alice.token) as client:
            for name, arguments in tool_arguments(mine).items():
                for field in schemas[name]["properties"]:
                    for value in HOSTILE:
                        result = await client.call_tool(name, {**arguments, field: value})
                        outcomes.append((f"{name}.{field}", result.content[0].text))
            for name in ("nope", "../context_build", "x" * 10_000):
                try:
                    await client.call_tool(name, {})
                except Exception as error:  # the SDK raises the JSON-RPC error it was answered with
                    outcomes.append((name, str(error)))

    asyncio.run(tool_probes())
    tool_calls = len(outcomes)

    headers = {"Authorization": f"Bearer {alice.token}", "Accept": "application/json, text/event-stream",
               "Content-Type": "application/json", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
               "Mcp-Name": "context_build"}
    envelope = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "context_build", "arguments": {"query": "x"}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}}
    raw = [b"", b"{", b"[]", b"null", b'"x"', json.dumps([envelope]).encode(), b"{" * 100_000,
           json.dumps({**envelope, "method": "nope"}).encode(), json.dumps({**envelope, "params": []}).encode(),
           json.dumps({**envelope, "params": {**envelope["params"], "arguments": "x"}}).encode(),
           json.dumps({**envelope, "params": {**envelope["params"], "name": None}}).encode(),
           json.dumps({**envelope, "id": {"x": 1}}).encode(), json.dumps({"jsonrpc": "2.0", "id": 1, "result": {}}).encode(),
           json.dumps({**envelope, "method": "resources/read", "params": {**envelope["params"], "uri": "file:///etc/passwd"}}).encode(),
           json.dumps({**envelope, "method": "resources/read", "params": {**envelope["params"],
                                                                          "uri": "memory://facts/../../x"}}).encode(),
           json.dumps({**envelope, "params": {**envelope["params"], "arguments": {"query": "\ud800"}}}).encode(),
           b"x" * (6 * 1024 * 1024)]
    tokens = [None, "Bearer", "Bearer a b", "Basic eDp5", f"Bearer {alice.token}x", "Bearer mp_x_y",
              f"Bearer {bob.token[:-2]}"]
    revoked = AgentToken.objects.get(digest=AgentToken.digest_of(bob.token))
    with httpx2.Client(timeout=60) as http:
        for body in raw:
            outcomes.append(("raw", _text(http.post(alice.url, content=body, headers=headers))))
        for version in ("2025-06-18", "1999-01-01", "x" * 1000):
            outcomes.append(("version", _text(http.post(alice.url, json=envelope,
                                                         headers={**headers, "MCP-Protocol-Version": version}))))
        for method in ("GET", "PUT", "DELETE", "PATCH"):
            outcomes.append(("method", _text(http.request(method, alice.url, headers=headers))))
        outcomes.append(("accept", _text(http.post(alice.url, json=envelope, headers={**headers, "Accept": "text/html"}))))
        for token in tokens:
            auth = {k: v for k, v in headers.items() if k != "Authorization"} | ({"Authorization": token} if token else {})
            outcomes.append(("token", _text(http.post(alice.url, json=envelope, headers=auth))))
        revoked.revoked_at = revoked.created_at
        revoked.save()
        outcomes.append(("revoked", _text(http.post(bob.url, json=envelope, headers={
            **headers, "Authorization": f"Bearer {bob.token}"}))))

    server_errors = [where for where, text in outcomes if text.startswith("5") or '"code":-32603' in text
                     or '"code": -32603' in text or "Internal" in text]
    leaks = [where for where, text in outcomes if "BUFFALO" in text]
    print(f"\nMCP probes: {tool_calls} tool calls, {len(outcomes) - tool_calls} raw requests; "
          f"{len(server_errors)} server errors, {len(leaks)} leaks")
    assert server_errors == [] and leaks == []
    assert tool_calls > 600


def _text(response) -> str:
    """Return the status and body of a raw response as one text, the status first."""
    return f"{response.status_code} {response.text}"


def test_a_request_whose_id_is_neither_text_nor_an_integer_is_refused_not_taken_for_a_notification(connect):
    alice = connect()
    headers = {"Authorization": f"Bearer {alice.token}", "Accept": "application/json, text/event-stream",
               "Content-Type": "application/json"}
    ping = b'{"jsonrpc": "2.0", "method": "tools/list", "params": {}, "id": %s}'
    with httpx2.Client(timeout=60) as http:
        answers = {raw: http.post(alice.url, content=ping % raw.encode(), headers=headers)
                   for raw in ("1e400", "1.5", "null", "true", '{"x": 1}', "[1]")}
        listed = http.post(alice.url, content=ping % b"10000000000000000000000", headers=headers)
        stream = http.get(alice.url, headers=headers)
    for raw, response in answers.items():
        assert response.status_code == 400, (raw, response.status_code, response.text)
        assert response.json() == {"jsonrpc": "2.0", "id": None, "error": {
            "code": -32600, "message": "The id must be a string or an integer."}}, raw
    assert listed.status_code == 200 and listed.json()["id"] == 10**22
    assert stream.status_code == 405 and stream.json()["message"]  # no server-initiated stream, said in JSON
