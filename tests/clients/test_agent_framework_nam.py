"""An Agent Framework agent moves from neo4j-agent-memory's providers to the portal's and still recalls the user.

NAM is not installed here: its graph (tests/fixtures/nam_graph.json) is what its providers left behind.
The agent below differs from a NAM one only in its providers, as docs/agent-api.md's "Moving from
neo4j-agent-memory" shows.
"""

import asyncio
import io

from agent_framework import Agent
from django.contrib.auth import get_user_model
from django.core.management import call_command
from memory_portal import AsyncMemoryPortalClient
from memory_portal.agent_framework import MemoryPortalContextProvider, MemoryPortalHistoryProvider

from memory import services
from memory.models import SCOPES, Subject
from memory.models import Agent as PortalAgent
from tests.support.agents import ScriptedChatClient
from tests.fixtures.nam import nam_adopt, nam_graph_load, nam_people


def test_after_adoption_the_agent_recalls_what_the_nam_user_had_said(live_server, transactional_db):
    people = nam_people(nam_graph_load())
    nam_adopt()
    account = get_user_model().objects.create_user(username="alice", email="alice@example.com")
    call_command("adopt_nam", "--claim", "nam-alice", "--account", "alice@example.com", stdout=io.StringIO())
    agent = PortalAgent.objects.create(agent_id="travel-helper", name="Travel helper", scopes=list(SCOPES))
    _, token = services.agent_token_issue(agent=agent)
    services.grant_create(subject=Subject.objects.get(account=account), agent=agent, actor=account)

    async def scenario():
        async with AsyncMemoryPortalClient(live_server.url, token, timeout=30) as memory:
            model = ScriptedChatClient(["You live in Lisbon and work at Acme Corp.", "Porto, in July."])
            assistant = Agent(client=model, instructions="You are a helpful assistant.", context_providers=[
                MemoryPortalHistoryProvider(memory, "nam-alice"),
                MemoryPortalContextProvider(memory, "nam-alice", limits={"history": 0}),
            ])
            await assistant.run("Where do I live and where do I work?",
                                session=assistant.create_session(session_id="portal-1"))
            # The session NAM's agent held goes on: its earlier turns come back as history.
            await assistant.run("And which festival was I going to?",
                                session=assistant.create_session(session_id="nam-alice-session-2"))
            return model.calls

    fresh, continued = asyncio.run(scenario())

    system = fresh[0][1]
    assert fresh[0][0] == "system" and system.startswith("You are a helpful assistant.\nWhat you remember")
    assert "I moved to Lisbon last spring and I work at Acme Corp now." in system
    assert "keep answers short" in system
    others = {m for i in ("nam-bob", "nam-carol") for m in people[i]["messages"]} - set(people["nam-alice"]["messages"])
    assert not [m for _, text in fresh + continued for m in others if m in text]
    assert ("user", "I am planning a trip to Porto for the Jazz Festival.") in continued[1:-1]
    assert ("assistant", "The Jazz Festival in Porto is in July.") in continued[1:-1]
    assert continued[-1] == ("user", "And which festival was I going to?")
