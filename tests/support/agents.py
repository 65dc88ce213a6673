"""A chat model of the tests' own for Agent Framework agents: canned replies, and a record of what it read."""

from collections.abc import Mapping, Sequence
from typing import Any

from agent_framework import BaseChatClient, ChatResponse, Message, prepend_instructions_to_messages


class ScriptedChatClient(BaseChatClient):
    """Answer with canned replies and record, per call, the (role, text) pairs the model would have read."""

    def __init__(self, answers: Sequence[str]):
        super().__init__()
        self.answers = list(answers)
        self.calls: list[list[tuple[str, str]]] = []

    async def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any],
                                  **kwargs: Any) -> ChatResponse:
        # As real chat clients do, the agent's and the providers' instructions become a system message.
        prompt = prepend_instructions_to_messages(list(messages), options.get("instructions"), role="system")
        self.calls.append([(m.role, m.text) for m in prompt])
        return ChatResponse(messages=[Message("assistant", [self.answers.pop(0)])])
