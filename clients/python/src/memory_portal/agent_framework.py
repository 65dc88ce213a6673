"""Agent Framework providers that keep an agent's memory in the portal.

`MemoryPortalContextProvider` asks the portal for context before the model runs and hands back the
turn afterwards; `MemoryPortalHistoryProvider` loads and stores a session's turns. Used together they
send the same client message ids, so the portal stores each message once.

Requires the `agent-framework` extra (`pip install "memory-portal-client[agent-framework]"`).
"""

import re
import uuid
from collections.abc import Sequence
from typing import Any

from agent_framework import AgentSession, ContextProvider, HistoryProvider, Message, SessionContext, SupportsAgentRun

from memory_portal.client import AsyncMemoryPortalClient
from memory_portal.types import ROLES, ContextMessage, Include, Limits, MessageIn

CLIENT_ID_PROPERTY = "memory_portal_client_message_id"
DEFAULT_HEADING = "What you remember about this user from earlier conversations (use it when it helps):"
_CLIENT_ID = re.compile(r"[A-Za-z0-9._:@-]{1,128}")
# The portal's largest token budget, so that loading a session's turns is cut by count, not by size.
_HISTORY_BUDGET = 16_000


def portal_messages(messages: Sequence[Message]) -> list[MessageIn]:
    """Return the messages the portal can store, each with a client id kept on the message for later calls."""
    result: list[MessageIn] = []
    for message in messages:
        if message.role not in ROLES or not message.text:
            continue
        fallback = message.message_id if message.message_id and _CLIENT_ID.fullmatch(message.message_id) \
            else uuid.uuid4().hex
        client_id = message.additional_properties.setdefault(CLIENT_ID_PROPERTY, fallback)
        result.append({"role": message.role, "content": message.text, "client_message_id": client_id})
    return result


class MemoryPortalContextProvider(ContextProvider):
    """Inject the portal's context as instructions before each run; append the run's messages after it.

    Pass `limits={"history": 0}` when a history provider already loads the session's turns, so they
    are not given to the model twice. Set `store_messages=False` to only read.
    """

    DEFAULT_SOURCE_ID = "memory_portal"

    def __init__(self, client: AsyncMemoryPortalClient, user_id: str, *, source_id: str = DEFAULT_SOURCE_ID,
                 recent_messages: int = 6, token_budget: int = 1000, include: Include | None = None,
                 limits: Limits | None = None, store_messages: bool = True, heading: str = DEFAULT_HEADING):
        super().__init__(source_id)
        self.client = client
        self.user_id = user_id
        self.recent_messages = recent_messages
        self.token_budget = token_budget
        self.include = include
        self.limits = limits
        self.store_messages = store_messages
        self.heading = heading

    async def before_run(self, *, agent: SupportsAgentRun, session: AgentSession, context: SessionContext,
                         state: dict[str, Any]) -> None:
        recent: list[ContextMessage] = [
            {"role": m.role, "content": m.text}
            for m in context.get_messages(include_input=True) if m.role in ROLES and m.text
        ][-self.recent_messages:]
        result = await self.client.context(
            self.user_id, session_id=context.session_id, messages=recent, include=self.include, limits=self.limits,
            token_budget=self.token_budget,
        )
        if result.context:
            context.extend_instructions(self.source_id, f"{self.heading}\n{result.context}")

    async def after_run(self, *, agent: SupportsAgentRun, session: AgentSession, context: SessionContext,
                        state: dict[str, Any]) -> None:
        if not self.store_messages or context.session_id is None:
            return
        turn = portal_messages([*context.input_messages, *(context.response.messages if context.response else [])])
        if turn:
            await self.client.append_messages(context.session_id, self.user_id, turn)


class MemoryPortalHistoryProvider(HistoryProvider):
    """Load a session's latest turns from the portal before each run and store the new ones after it."""

    DEFAULT_SOURCE_ID = "memory_portal_history"

    def __init__(self, client: AsyncMemoryPortalClient, user_id: str, *, source_id: str = DEFAULT_SOURCE_ID,
                 max_messages: int = 20, load_messages: bool = True, store_inputs: bool = True,
                 store_outputs: bool = True):
        super().__init__(source_id, load_messages=load_messages, store_inputs=store_inputs,
                         store_outputs=store_outputs)
        self.client = client
        self.user_id = user_id
        self.max_messages = max_messages

    async def get_messages(self, session_id: str | None, *, state: dict[str, Any] | None = None,
                           **kwargs: Any) -> list[Message]:
        if session_id is None:
            return []
        result = await self.client.context(
            self.user_id, session_id=session_id, include={"history": True, "long_term": False, "reasoning": False},
            limits={"history": self.max_messages, "messages": 0}, token_budget=_HISTORY_BUDGET,
        )
        messages = []
        for item in result.items:
            if item.provenance.get("source") != "recent":
                continue
            # The portal prints a recent turn as "whose words: content"; whose words never contain ": ".
            content = item.text.partition(": ")[2]
            messages.append(Message(item.provenance["role"], [content]))
        return messages

    async def save_messages(self, session_id: str | None, messages: Sequence[Message], *,
                            state: dict[str, Any] | None = None, **kwargs: Any) -> None:
        turn = portal_messages(messages)
        if session_id is not None and turn:
            await self.client.append_messages(session_id, self.user_id, turn)
