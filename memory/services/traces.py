"""Reasoning traces an agent records: a task, its steps with their tool calls, an outcome."""

import json

from memory import cypher
from memory.embeddings import get_embedder
from memory.models import Agent, Subject
from memory.selectors import PersonWords, consent_require, consented_categories
from memory.services.grants import consent_refusal
from memory.trust import held_reasons
from portal import graphdb
from portal.exceptions import NotFound


def trace_start(*, subject: Subject, agent: Agent, session_id: str, task: str) -> dict:
    """Start a reasoning trace of a task in a session; return its uid, or, without consent, why it was not stored."""
    if "reasoning" not in consented_categories(subject=subject, agent=agent):
        return {"uid": None, **consent_refusal(category="reasoning")}
    embedding = get_embedder().embed([task])[0].tolist()
    uid = graphdb.scalar(cypher.TRACE_START, {
        "user_id": subject.user_id, "session_id": session_id, "agent_id": agent.agent_id,
        "task": task, "embedding": embedding,
    })
    return {"uid": uid, "stored": True}


def trace_step_add(*, subject: Subject, agent: Agent, trace_uid: str, thought: str | None, action: str | None,
                   observation: str | None, tool_calls: list[dict]) -> dict:
    """Add a step with its tool calls to an open trace; refused when the subject withdrew consent to reasoning."""
    consent_require(subject=subject, agent=agent, category="reasoning")
    step = graphdb.rows(cypher.TRACE_STEP_ADD, {
        "user_id": subject.user_id, "trace_uid": trace_uid, "thought": thought, "action": action,
        "observation": observation, "tool_calls": [_tool_call_row(call) for call in tool_calls],
    })
    if not step:
        raise NotFound("No open reasoning trace with that id.")
    return step[0]


def _tool_call_row(call: dict) -> dict:
    # Arguments and results are free-form JSON; the graph stores them as JSON text.
    return {
        "tool_name": call["tool_name"], "arguments": json.dumps(call.get("arguments")),
        "result": json.dumps(call.get("result")), "status": call.get("status"), "error": call.get("error"),
        "duration_ms": call.get("duration_ms"),
    }


def trace_complete(*, subject: Subject, agent: Agent, trace_uid: str, outcome: str, success: bool) -> None:
    """Close an open trace with its outcome; refused when the subject withdrew consent to reasoning."""

    consent_require(subject=subject, agent=agent, category="reasoning")
    texts = graphdb.scalar(cypher.TRACE_TEXTS, {"user_id": subject.user_id, "trace_uid": trace_uid}) or []
    completed = graphdb.scalar(cypher.TRACE_COMPLETE, {
        "user_id": subject.user_id, "trace_uid": trace_uid, "outcome": outcome, "success": success,
        # held whole: a thought may say what its action does not
        "held_reasons": held_reasons([*texts, outcome], person=PersonWords(user_id=subject.user_id)),
    })
    if completed is None:
        raise NotFound("No open reasoning trace with that id.")
