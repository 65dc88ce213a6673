"""A real Agent Framework agent keeps its memory through the portal's MCP server (MCPStreamableHTTPTool), its
model the suite's local OpenAI-compatible server, across two sessions."""

import asyncio

from agent_framework import Agent, MCPStreamableHTTPTool
from agent_framework.openai import OpenAIChatCompletionClient

from memory import ingest, selectors
from tests.openai_server import OpenAIStub


def test_an_agent_remembers_in_one_session_and_recalls_in_the_next(connect):
    person = connect()

    async def run(stub, text: str) -> str:
        memory = MCPStreamableHTTPTool(name="memory", url=person.url, load_prompts=False,
                                       static_headers={"Authorization": f"Bearer {person.token}"})
        async with memory:
            agent = Agent(client=OpenAIChatCompletionClient(model="stub-model", api_key="test", base_url=stub.url),
                          instructions="You help plan trips.", tools=memory)
            return (await agent.run(text, session=agent.create_session())).text

    with OpenAIStub() as stub:
        first = asyncio.run(run(stub, "Remember that my favourite launch colour is teal."))
        [stored] = selectors.item_list(user_id=person.user_id, kind="messages")["items"]
        assert ingest.message_extract(message_uid=stored["uid"], user_id=person.user_id) == "done"
        second = asyncio.run(run(stub, "What is my favourite launch colour?"))

    assert first == "Noted." and stored["content"] == "Remember that my favourite launch colour is teal."
    assert "teal" in second
    calls = [message["tool_calls"][0]["function"]["name"] for request in stub.requests
             for message in request["body"]["messages"] if message.get("tool_calls")]
    assert calls == ["message_append", "context_build"]
    offered = {tool["function"]["name"] for tool in stub.requests[0]["body"]["tools"]}
    assert {"context_build", "message_append", "item_delete"} <= offered
