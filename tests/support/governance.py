"""A person's memory in every kind, written through the product's path, for the pages of "My memory"."""

from memory import ingest, selectors, services
from memory.models import Agent, Subject


def seed_memory(*, subject: Subject, agent: Agent, word: str = "ALPACA") -> dict:
    """Append a conversation of two messages as the agent would and extract each as the worker would, then
    record a trace with a step and a tool call; return the uids by kind.

    The person's message states where they work (a fact about a company it mentions), where that company
    is headquartered (a related city, and a fact of it) and a preference; the reply mentions the city.
    """
    session_id = f"chat-{word}"
    results = services.messages_append(subject=subject, agent=agent, session_id=session_id, messages=[
        {"role": "user", "content": f"I work at {word} Corp. {word} Corp is headquartered in {word}ville. "
                                    f"I like {word} tea."},
        {"role": "assistant", "content": f"Noted: {word}ville is lovely."},
    ])
    message, reply = (result["uid"] for result in results)
    for uid in (message, reply):
        assert ingest.message_extract(message_uid=uid, user_id=subject.user_id) == "done"
    trace = services.trace_start(subject=subject, agent=agent, session_id=session_id, task=f"look up {word}")["uid"]
    services.trace_step_add(subject=subject, agent=agent, trace_uid=trace, thought=f"search {word}",
                            action="search", observation=f"found {word} Corp", tool_calls=[
                                {"tool_name": "search", "arguments": {}, "result": word, "status": "success"}])
    services.trace_complete(subject=subject, agent=agent, trace_uid=trace, outcome="found", success=True)

    def uid_of(kind: str, field: str, value: str) -> str:
        return next(item["uid"] for item in selectors.item_list(user_id=subject.user_id, kind=kind)["items"]
                    if item[field] == value)

    conversation = next(c["uid"] for c in selectors.conversation_list(user_id=subject.user_id)
                        if c["session_id"] == session_id)
    return {"conversation": conversation, "messages": message, "reply": reply,
            "facts": uid_of("facts", "predicate", "EMPLOYED_BY"),
            "preferences": uid_of("preferences", "preference", f"likes {word} tea"),
            "entities": uid_of("entities", "name", f"{word} Corp"), "city": uid_of("entities", "name", f"{word}ville"),
            "traces": trace}
