"""Build the context an agent injects before its model runs: recall, then format within a budget.

Other apps add sections of their own through `context_section_register` (knowledge does, in its
AppConfig.ready()), so memory never imports them.
"""

import heapq
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from memory import selectors
from memory.embeddings import get_embedder
from memory.extraction.dates import stated_date
from memory.kinds import ENTITIES, FACTS, MESSAGES, PREFERENCES, TRACES
from memory.models import CATEGORIES, Agent, Subject
from portal.graphdb import moment
from portal.tokens import count_tokens, tokens_cut

HISTORY = "history"
# Sections in the order they are filled: the densest memory first, so a small budget keeps it.
SECTIONS = {
    FACTS.name: FACTS.section,
    PREFERENCES.name: PREFERENCES.section,
    HISTORY: "Conversation so far:",
    MESSAGES.name: MESSAGES.section,
    ENTITIES.name: ENTITIES.section,
    TRACES.name: TRACES.section,
}
DEFAULT_LIMITS = {HISTORY: 10, **{kind.name: kind.default_limit for kind in (FACTS, PREFERENCES, MESSAGES,
                                                                            ENTITIES, TRACES)}}
# Sections whose items may be cut to fit the budget rather than left out.
CUTTABLE = (HISTORY, MESSAGES.name)
# A message is cut to fit only when at least this many of its tokens would remain.
MIN_CUT_TOKENS = 8
# The span around a date a question names, in which message recall looks again.
TIME_BEFORE = timedelta(days=3)
TIME_AFTER = timedelta(days=31)
# The query text is built from this many of the caller's last user/assistant messages.
QUERY_MESSAGES = 3
# The lines that open and close the context text: an agent's prompt can tell remembered content,
# which is data, from its own instructions. Nothing stored can print either line.
CONTEXT_BEGIN = "<memory-context>"
CONTEXT_END = "</memory-context>"
# Every control character (C0 with tab, CR and LF; DEL; C1 with NEL) and the Unicode line and paragraph
# separators, with the blanks around them: each run becomes one space, so stored text cannot start a line.
LINE_BREAKS = re.compile(r"[ \t]*(?:[\x00-\x1f\x7f-\x9f\u2028\u2029][ \t]*)+")
# A fence tag written inside stored text ("</memory-context>", in any case or spacing) loses its "<".
FENCE_TAG = re.compile(r"<(?=\s*/?\s*memory-context)", re.IGNORECASE)


@dataclass(frozen=True)
class ContextSection:
    """A section another app fills: `provide(agent=, request=, query=, embedding=, limit=)` returns items.

    An agent without `scope` may not ask for it.
    """

    name: str
    header: str
    default_limit: int
    provide: Callable[..., list[dict]]
    item_type: str
    scope: str


PROVIDED: dict[str, ContextSection] = {}


def context_section_register(section: ContextSection) -> None:
    """Let an app fill a section of the context; an agent asks for it with `include: {<name>: true}`."""
    PROVIDED[section.name] = section


def sections() -> dict[str, str]:
    """Return every section's header, memory's own first, in the order they are printed."""
    return {**SECTIONS, **{name: section.header for name, section in PROVIDED.items()}}


def default_limits() -> dict[str, int]:
    return {**DEFAULT_LIMITS, **{name: section.default_limit for name, section in PROVIDED.items()}}


def sections_refused(*, agent: Agent, include: dict[str, bool]) -> list[str]:
    """Return the provided sections asked for that the agent lacks the scope of."""
    return [name for name, section in PROVIDED.items() if include.get(name) and section.scope not in agent.scopes]


def include_defaults() -> dict[str, bool]:
    """Return what a context includes unless asked otherwise: every category, no provided section."""
    return {**{category: True for category in CATEGORIES}, **{name: False for name in PROVIDED}}


@dataclass
class ContextRequest:
    session_id: str | None
    query: str | None
    messages: list[dict] = field(default_factory=list)
    include: dict = field(default_factory=dict)
    limits: dict = field(default_factory=dict)
    token_budget: int = 1000
    as_of: datetime | None = None
    knowledge_profile: str | None = None


def query_text(request: ContextRequest) -> str:
    """Return the explicit query, or the last few user/assistant messages (system messages dropped)."""
    if request.query:
        return request.query
    spoken = [m["content"] for m in request.messages if m.get("role") in ("user", "assistant")]
    return "\n".join(spoken[-QUERY_MESSAGES:])


def context_build(*, subject: Subject, agent: Agent, request: ContextRequest, categories: set[str]) -> dict:
    """Recall the subject's memory within its retention for this agent, for one turn, and format it within
    the token budget; `turn_seq` is the seq of the turn it serves, when the session's history was read.

    The graph is read in one statement (`selectors.context_recall`), after a bounded count of the
    names in the query when it has any (`selectors.query_focus`); provided sections read their own.
    """
    user_id = subject.user_id
    cutoffs = selectors.retention_cutoffs(subject=subject, agent=agent)
    limits = {**default_limits(), **request.limits}
    include = {**include_defaults(), **request.include}
    wanted = {name for name, on in include.items() if on and (name in PROVIDED or name in categories)}
    text = query_text(request)
    sections = {"history": HISTORY in wanted and bool(request.session_id),
                "recall": HISTORY in wanted and bool(text) and limits[MESSAGES.name] > 0,
                "long_term": "long_term" in wanted and bool(text),
                "reasoning": "reasoning" in wanted and bool(text)}
    focus = selectors.query_focus(user_id=user_id, text=text, cutoffs=cutoffs) if sections["recall"] \
        else {"text": text, "speaker": None}
    # The names the person's conversations keep using tell none of their memories apart, so the focused
    # query ranks all of it; the whole query is embedded too (in the same call) only for another app's
    # section, whose documents are not the person's.
    provided = [name for name, section in PROVIDED.items() if name in wanted and limits[name]]
    whole = bool(provided) and focus["text"] != text
    vectors = get_embedder().embed([focus["text"], *([text] if whole else [])]) if text else []
    embedding = vectors[0].tolist() if text else None
    provided_embedding = vectors[-1].tolist() if text else None
    recall = selectors.context_recall(
        user_id=user_id, session_id=request.session_id, sections=sections, limits=limits, embedding=embedding,
        during=_time_asked(text) if text else None, speaker=focus["speaker"],
        lucene=selectors.lucene_query(text=focus["text"], user_id=user_id, fields=("content",)) if text else None,
        entity_lucene=selectors.lucene_query(text=text, user_id=user_id, fields=("name", "aliases")) if text else None,
        as_of=request.as_of, cutoffs=cutoffs,
    )
    found: dict[str, list[dict]] = {}
    if HISTORY in wanted:
        found[HISTORY] = [_history_item(m) for m in recall["recent"]]
        if sections["recall"]:
            found[MESSAGES.name] = [_message_item(m) for m in recall["messages"]]
    if sections["long_term"]:
        found[FACTS.name] = [_fact_item(f) for f in _follow_best_fact(recall["facts"])]
        found[PREFERENCES.name] = [_preference_item(p) for p in recall["preferences"]]
        found[ENTITIES.name] = [_entity_item(e) for e in recall["entities"]]
    if sections["reasoning"]:
        found[TRACES.name] = [_trace_item(t) for t in recall["traces"]]
    for name in provided if text else []:
        found[name] = PROVIDED[name].provide(agent=agent, request=request, query=text, embedding=provided_embedding,
                                             limit=limits[name])
    return {**_format(found, request.token_budget), "turn_seq": recall["next_seq"] if sections["history"] else None}


def _time_asked(text: str) -> tuple[datetime, datetime] | None:
    """Return the span a question's stated date points into: from a few days before it to a month after.

    "In May 2023" names the 1st of May, "on 7 July, 2023" a day whose events are talked about in the
    days and weeks around it; the span is a hint to recall, not a filter.
    """
    stated = stated_date(text, reference_date=datetime.now(UTC).date())
    if stated is None:
        return None
    start = moment(stated)
    return start - TIME_BEFORE, start + TIME_AFTER


def _follow_best_fact(facts: list[dict]) -> list[dict]:
    """Rank facts about what the best fact points to right after it: the second hop of a join.

    "Which team owns the service X depends on?" is best matched by "X depends on Y"; the answer is
    a fact about Y, which on its own resembles the question less than other facts about X do.
    """
    if not facts:
        return facts
    target = facts[0]["object"].lower()
    hop = [f for f in facts[1:] if f["subject"].lower() == target]
    rest = [f for f in facts[1:] if f["subject"].lower() != target]
    return [facts[0], *hop, *rest]


def _format(found: dict[str, list[dict]], budget: int) -> dict:
    """Fill the budget with the session's latest turns, then facts (the densest memory), then the
    best-scoring items of any other kind, each kind in the order its recall ranked it.

    A message that does not fit whole is cut to the room left rather than traded for a weaker one.
    The text is fenced by CONTEXT_BEGIN and CONTEXT_END, one line per item; the items keep their text as stored.
    """
    queue = [(HISTORY, item) for item in reversed(found.get(HISTORY, []))]
    queue += [(FACTS.name, item) for item in found.get(FACTS.name, [])]
    headers = sections()
    queue += heapq.merge(*([(section, item) for item in found.get(section, [])] for section in headers
                           if section not in (HISTORY, FACTS.name)), key=lambda pair: -pair[1]["score"])
    chosen: dict[str, list[dict]] = {section: [] for section in headers}
    used = count_tokens(f"{CONTEXT_BEGIN}\n{CONTEXT_END}")
    omitted = 0
    for section, item in queue:
        header = 0 if chosen[section] else count_tokens(headers[section])
        cost = header + count_tokens(_item_line(item["text"]))
        if used + cost > budget:
            room = budget - used - header - 2  # the "- " and an ellipsis
            if section not in CUTTABLE or room < MIN_CUT_TOKENS:
                omitted += 1
                continue
            item = {**item, "text": tokens_cut(item["text"], room)}
            cost = header + count_tokens(_item_line(item["text"]))
            if used + cost > budget:
                omitted += 1
                continue
        used += cost
        chosen[section].append(item)
    chosen[HISTORY].reverse()
    lines, items = [], []
    for section, header in headers.items():
        if chosen[section]:
            lines.append(header)
            lines.extend(_item_line(item["text"]) for item in chosen[section])
            items.extend(chosen[section])
    text = "\n".join([CONTEXT_BEGIN, *lines, CONTEXT_END]) if lines else ""
    return {"context": text, "items": items, "token_count": count_tokens(text) if text else 0, "omitted": omitted}


def _item_line(text: str) -> str:
    """Return one item as one line of the context: line breaks and control characters as a space, fence tags defused."""
    return "- " + FENCE_TAG.sub("\u2039", LINE_BREAKS.sub(" ", text)).strip()


def _day(value: date | datetime) -> str:
    """Return the day of a stated date or of a moment."""
    return (value.date() if isinstance(value, datetime) else value).isoformat()


def _history_item(m: dict) -> dict:
    return {"id": m["uid"], "type": "message", "score": 1.0, "text": f"{m['role']}: {m['content']}",
            "provenance": {"session_id": m["session_id"], "seq": m["seq"], "created_at": m["created_at"],
                           "role": m["role"], "source": "recent"}}


def _message_item(m: dict) -> dict:
    said = m["created_at"]
    return {"id": m["uid"], "type": "message", "score": m["score"],
            "text": f"{m['role']}, {said.day} {said:%B %Y}: {m['content']}",
            "provenance": {"session_id": m["session_id"], "seq": m["seq"], "created_at": said, "role": m["role"],
                           "source": "recall", "ranks": m["ranks"], "scores": m["scores"],
                           "next_to": m["next_to"], "speaker_asked": m["speaker_asked"]}}


def _fact_item(f: dict) -> dict:
    predicate = f["predicate"].replace("_", " ").lower()
    text = f"{f['subject']} {predicate} {f['object']}"
    if f["valid_from"]:
        text += f" (since {_day(f['valid_from'])})"
    if f["valid_until"]:
        text += f" (until {_day(f['valid_until'])})"
    return {"id": f["uid"], "type": "fact", "score": round(f["score"], 4), "text": text,
            "provenance": {"message_uid": f["message_uid"], "recorded_at": f["recorded_at"]}}


def _preference_item(p: dict) -> dict:
    return {"id": p["uid"], "type": "preference", "score": round(p["score"], 4),
            "text": f"[{p['category']}] {p['preference']}",
            "provenance": {"message_uid": p["message_uid"], "valid_from": p["valid_from"]}}


def _entity_item(e: dict) -> dict:
    text = f"{e['name']} ({e['type']}"
    if e["aliases"]:
        text += f"; also {', '.join(e['aliases'][:3])}"
    text += ")"
    related = [r for r in e["related"] if r.get("name")]
    if related:
        text += ": " + "; ".join(
            f"{r['type'].replace('_', ' ').lower()} {r['name']}" if r["outgoing"]
            else f"{r['name']} {r['type'].replace('_', ' ').lower()} it"
            for r in related
        )
    return {"id": e["uid"], "type": "entity", "score": round(e["score"], 4), "text": text, "provenance": {}}


def _trace_item(t: dict) -> dict:
    verdict = "succeeded" if t["success"] else "failed"
    text = f"{t['task']} -> {t['outcome'] or 'no outcome'} ({verdict})"
    if t["steps"]:
        text += f"; steps: {' > '.join(s for s in t['steps'] if s)}"
    return {"id": t["uid"], "type": "trace", "score": round(t["score"], 4), "text": text, "provenance": {}}
