"""Reads of the knowledge graph: vector, fulltext and hybrid search, enriched by a profile's Cypher."""

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import neo4j
import numpy as np
from neo4j.exceptions import ClientError
from neomodel import db

from knowledge import cypher
from knowledge.models import RetrievalProfile
from memory.context import ContextRequest
from memory.embeddings import get_embedder
from memory.models import Agent
from portal import graphdb
from portal.exceptions import AccessDenied, ApplicationError, NotFound
from portal.graphdb import rows
from portal.tokens import count_tokens

CONVERSATION_ROLES = ("user", "assistant")
RESERVED_COLUMNS = ("text", "score", "uid")
# Lucene's query syntax characters; `&&` and `||` are covered by escaping each `&` and `|`.
LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
LUCENE_OPERATORS = re.compile(r"\b(AND|OR|NOT)\b")
WRITING_QUERY_TYPES = ("rw", "w", "s")
FORBIDDEN_OPERATORS = {"LoadCSV": "LOAD CSV reads files or URLs"}


@dataclass(frozen=True)
class KnowledgeItem:
    score: float
    text: str
    uid: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def lucene_escape(text: str) -> str:
    """Return `text` as literal Lucene terms: syntax characters escaped, operator words lowercased.

    The fulltext analyzer lowercases terms anyway, so lowercasing AND/OR/NOT changes no match.
    """
    return LUCENE_OPERATORS.sub(lambda m: m.group(1).lower(), LUCENE_SPECIAL.sub(r"\\\1", text))


def knowledge_query_text(*, query: str | None, messages: Sequence[dict], window: int) -> str:
    """Return the text to search for: the explicit query, else the last `window` user and assistant
    messages that hold text (system messages and blank ones are dropped).

    The knowledge search API and the context's knowledge section both ask this, so the same
    conversation searches the same text on both.
    """
    if query:
        return query
    spoken = [m["content"] for m in messages if m.get("role") in CONVERSATION_ROLES and m.get("content", "").strip()]
    return "\n".join(spoken[-window:])


def knowledge_search(
    *,
    profile: RetrievalProfile,
    query: str,
    top_k: int | None = None,
    enrich: bool = True,
    query_vector: list[float] | None = None,
) -> list[KnowledgeItem]:
    """Search the profile's indexes for `query`, then run its retrieval query unless `enrich` is off.

    Runs in a read-access transaction, so a retrieval query cannot write.
    """
    if not query.strip():
        raise ApplicationError("The query is empty; send `query` or messages with text.", {"field": "query"})
    statement = _search_statement(profile=profile, enrich=enrich)
    params = _search_params(profile=profile, query=query, top_k=top_k or profile.top_k, query_vector=query_vector)
    try:
        with db.read_transaction:
            found = graphdb.rows(statement, params)
    except ClientError as error:
        raise ApplicationError(
            f"Retrieval profile {profile.name!r} failed in Neo4j: {error.message}",
            {"profile": profile.name, "code": error.code},
        ) from error
    items = [_item(row) for row in found]
    return sorted(items, key=lambda item: item.score, reverse=True)


def chunk_embeddings_get(*, uids: list[str]) -> dict[str, tuple[str, list[float]]]:
    """Return the stored (text, embedding) of those chunks that have one, by uid."""
    return {row["uid"]: (row["text"], row["embedding"]) for row in rows(cypher.CHUNK_EMBEDDINGS, {"uids": uids})}


def retrieval_profile_get_for_agent(*, agent: Agent, name: str | None) -> RetrievalProfile | None:
    """Return the named profile if the agent may use it; without a name, the agent's first profile."""
    if name is None:
        return agent.retrieval_profiles.order_by("name").first()
    profile = RetrievalProfile.objects.filter(name=name).first()
    if profile is None:
        raise NotFound(f"No retrieval profile named {name!r}.", {"profile": name})
    if not profile.agents.filter(pk=agent.pk).exists():
        raise AccessDenied(f"This agent may not use the retrieval profile {name!r}.", {"profile": name})
    return profile


def knowledge_context(
    *,
    agent: Agent,
    profile_name: str | None,
    query: str | None,
    top_k: int,
    token_budget: int,
    messages: Sequence[dict] = (),
    embedded: dict[str, list[float]] | None = None,
) -> list[dict]:
    """Return the agent's knowledge hits as context items, best first, within `token_budget`.

    The search text is `query`, else the profile's window of `messages` (knowledge_query_text).
    Items have the context endpoint's shape (id, type "knowledge", score, text, provenance); each
    text reads `[Score: 0.892] [company: Apple Inc.] [risks: ...] chunk text`. Without `profile_name`
    the agent's first profile (by name) is used; an agent with none gets nothing. `embedded` holds
    vectors the caller already made, by text, so a text already embedded is not embedded again.
    """
    profile = retrieval_profile_get_for_agent(agent=agent, name=profile_name)
    if profile is None:
        return []
    query = knowledge_query_text(query=query, messages=messages, window=profile.message_window)
    if not query.strip():
        return []
    context = []
    spent = 0
    vector = (embedded or {}).get(query)
    for item in knowledge_search(profile=profile, query=query, top_k=top_k, query_vector=vector):
        text = knowledge_item_format(item=item)
        spent += count_tokens(text)
        if spent > token_budget:
            break
        context.append({
            "id": item.uid or "",
            "type": "knowledge",
            "score": round(item.score, 4),
            "text": text,
            "provenance": {"profile": profile.name, **item.metadata},
        })
    return context


def knowledge_context_section(*, agent: Agent, request: ContextRequest, query: str, embedding: list[float],
                              limit: int) -> list[dict]:
    """Fill the context's knowledge section (registered with memory.context in KnowledgeConfig.ready()).

    It searches what the knowledge search API would for the same request, not memory's query text. Each
    item carries its chunk's similarity to the query (Neo4j's (1 + cosine) / 2), whatever the profile ranked
    it by, so the context can weigh it against memory on one scale.
    """
    items = knowledge_context(agent=agent, profile_name=request.knowledge_profile, query=request.query,
                              messages=request.messages, top_k=limit, token_budget=request.token_budget,
                              embedded={query: embedding})
    stored = chunk_embeddings_get(uids=[item["id"] for item in items if item["id"]])
    question = np.asarray(embedding)
    for item in items:
        vector = stored.get(item["id"], (None, None))[1]
        item["similarity"] = None if vector is None else float(
            (1 + np.dot(vector, question) / (np.linalg.norm(vector) * np.linalg.norm(question))) / 2)
    return items


def knowledge_item_format(*, item: KnowledgeItem) -> str:
    """Return `[Score: 0.892] [key: value] ... text`, skipping empty metadata."""
    parts = [f"[Score: {item.score:.3f}]"]
    for key, value in item.metadata.items():
        if value in (None, "", [], {}):
            continue
        shown = ", ".join(str(v) for v in value) if isinstance(value, list) else value
        parts.append(f"[{key}: {shown}]")
    parts.append(item.text)
    return " ".join(parts)


def retrieval_profile_problems(*, profile: RetrievalProfile) -> dict[str, list[str]]:
    """Return what keeps the profile from working, by field: missing or wrong indexes, a retrieval query that writes."""
    indexes = {row["name"]: row for row in _indexes()}
    problems: dict[str, list[str]] = {}
    needed = {
        "vector_index": ("VECTOR", profile.mode in (RetrievalProfile.Mode.VECTOR, RetrievalProfile.Mode.HYBRID)),
        "fulltext_index": ("FULLTEXT", profile.mode in (RetrievalProfile.Mode.FULLTEXT, RetrievalProfile.Mode.HYBRID)),
    }
    for field_name, (index_type, required) in needed.items():
        name = getattr(profile, field_name)
        if not name:
            if required:
                problems[field_name] = [f"The {profile.mode} mode needs a {index_type.lower()} index."]
            continue
        index = indexes.get(name)
        if index is None or index["type"] != index_type or index["entityType"] != "NODE":
            known = sorted(n for n, row in indexes.items() if row["type"] == index_type and row["entityType"] == "NODE")
            problems[field_name] = [
                f"No {index_type.lower()} node index named {name!r}; known: {', '.join(known) or 'none'}."
            ]
        elif index_type == "VECTOR" and index["dimensions"] != get_embedder().dimensions:
            problems[field_name] = [
                f"{name!r} holds {index['dimensions']}-dimensional vectors; "
                f"the embedder makes {get_embedder().dimensions}."
            ]
    if profile.retrieval_query.strip() and not problems:
        query_problems = retrieval_query_problems(profile=profile)
        if query_problems:
            problems["retrieval_query"] = query_problems
    return problems


def retrieval_query_problems(*, profile: RetrievalProfile) -> list[str]:
    """EXPLAIN the profile's search plus retrieval query: it must parse, only read, and return text and score."""
    statement = _search_statement(profile=profile, enrich=True)
    params = _search_params(
        profile=profile, query="explain", top_k=profile.top_k, query_vector=[0.0] * get_embedder().dimensions
    )
    try:
        columns, query_type, plan = graphdb.explain(statement, params)
    except ClientError as error:
        return [f"Neo4j rejects it: {error.message}"]
    problems = []
    if query_type in WRITING_QUERY_TYPES:
        problems.append(f"It writes (query type {query_type!r}); retrieval queries must only read.")
    operators = _plan_operators(plan)
    problems += [f"It uses {name}: {why}." for name, why in FORBIDDEN_OPERATORS.items() if name in operators]
    missing = [c for c in ("text", "score") if c not in columns]
    if missing:
        problems.append(
            f"It must return {' and '.join(missing)} (as `... AS text, score`); it returns {', '.join(columns)}."
        )
    return problems


def _search_statement(*, profile: RetrievalProfile, enrich: bool) -> str:
    if profile.mode == RetrievalProfile.Mode.VECTOR:
        search = cypher.VECTOR_SEARCH
    elif profile.mode == RetrievalProfile.Mode.FULLTEXT:
        search = cypher.FULLTEXT_SEARCH
    else:
        search = {
            RetrievalProfile.Ranker.MAX: cypher.HYBRID_MAX,
            RetrievalProfile.Ranker.LINEAR: cypher.HYBRID_LINEAR,
            RetrievalProfile.Ranker.RRF: cypher.HYBRID_RRF,
        }[profile.ranker]
    tail = profile.retrieval_query.strip() if enrich and profile.retrieval_query.strip() else cypher.PLAIN_RETURN
    return f"{search} {tail}"


def _search_params(
    *, profile: RetrievalProfile, query: str, top_k: int, query_vector: list[float] | None = None
) -> dict:
    params = {
        "vector_index_name": profile.vector_index,
        "fulltext_index_name": profile.fulltext_index,
        "top_k": top_k,
        "effective_search_ratio": profile.effective_search_ratio,
        "alpha": profile.alpha,
        "rrf_k": profile.rrf_k,
        "query_text": lucene_escape(query),
        "query_vector": None,
    }
    if profile.mode != RetrievalProfile.Mode.FULLTEXT:
        params["query_vector"] = query_vector or get_embedder().embed([query])[0].tolist()
    return params


def _item(row: dict) -> KnowledgeItem:
    return KnowledgeItem(
        score=float(row["score"]),
        text=str(row.get("text") or ""),
        uid=row.get("uid"),
        metadata={key: _plain(value) for key, value in row.items() if key not in RESERVED_COLUMNS},
    )


def _plain(value: Any) -> Any:
    """Return a JSON-ready copy of a Neo4j value; node and relationship embeddings are left out."""

    if isinstance(value, (neo4j.graph.Node, neo4j.graph.Relationship)):
        return {key: _plain(v) for key, v in value.items() if key != "embedding"}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {key: _plain(v) for key, v in value.items()}
    if hasattr(value, "iso_format"):
        return value.iso_format()
    if isinstance(value, date):  # a date or a moment the reader made native
        return value.isoformat()
    return value


def _indexes() -> list[dict]:
    return rows(cypher.INDEXES)


def _plan_operators(plan: dict | None) -> set[str]:
    if not plan:
        return set()
    name = plan.get("operatorType", "").split("@")[0]
    return {name}.union(*(_plan_operators(child) for child in plan.get("children", [])))
