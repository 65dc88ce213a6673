"""A real Agent Framework agent, with a scripted model, keeps its memory in the live portal across sessions."""

import asyncio

from agent_framework import Agent
from memory_portal import AsyncMemoryPortalClient
from memory_portal.agent_framework import MemoryPortalContextProvider, MemoryPortalHistoryProvider
from tests.support.agents import ScriptedChatClient


def _agent(model: ScriptedChatClient, memory: AsyncMemoryPortalClient, user_id: str) -> Agent:
    return Agent(client=model, instructions="You help plan rocket launches.", context_providers=[
        MemoryPortalHistoryProvider(memory, user_id),
        MemoryPortalContextProvider(memory, user_id, limits={"history": 0}),
    ])


def test_session_two_receives_what_the_user_said_in_session_one(portal):
    async def scenario():
        async with AsyncMemoryPortalClient(portal.base_url, portal.token, timeout=30) as memory:
            first = ScriptedChatClient(["Teal it is.", "I will."])
            agent = _agent(first, memory, portal.user_id)
            session = agent.create_session(session_id="launch-1")
            await agent.run("My favourite launch colour is teal.", session=session)
            await agent.run("Remember that for next time.", session=session)
            stored = [item async for item in memory.iter_items(portal.user_id, "messages")]

            second = ScriptedChatClient(["Teal."])
            later = _agent(second, memory, portal.user_id)
            question = "What is my favourite launch colour?"
            reply = await later.run(question, session=later.create_session(session_id="launch-2"))
            return first.calls, stored, second.calls, reply.text

    first_calls, stored, second_calls, reply = asyncio.run(scenario())

    # Both providers handed back the same turns with the same client ids: each message is stored once.
    assert sorted(item["content"] for item in stored) == sorted([
        "My favourite launch colour is teal.", "Teal it is.", "Remember that for next time.", "I will."])
    # Within session one, the history provider loaded the earlier turn from the portal.
    assert first_calls[1][1:] == [("user", "My favourite launch colour is teal."), ("assistant", "Teal it is."),
                                  ("user", "Remember that for next time.")]

    [prompt] = second_calls
    assert [role for role, _ in prompt] == ["system", "user"]
    system = prompt[0][1]
    assert system.startswith("You help plan rocket launches.\nWhat you remember about this user")
    assert "\n- user: My favourite launch colour is teal.\n" in system  # said today: no date
    assert prompt[1] == ("user", "What is my favourite launch colour?")
    assert reply == "Teal."
