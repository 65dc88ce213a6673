"""Reads of memory. Every function that serves memory takes the subject's `user_id` and uses it."""

import base64
import json
import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from memory import cypher
from memory.cypher import adoption as adoption_cypher
from memory.access_state import access_state_cached
from memory.graph import Fact, Preference
from memory.kinds import KINDS, MESSAGES, kind_get
from memory.nam import person_names
from memory.models import (CATEGORIES, Agent, ConsentRecord, Correction, Grant, HeldMemory, RetentionChoice,
                           RetentionPolicy, Subject)
from memory.extraction.speakers import speaker_split
from memory.trust import INSTRUCTION, item_source
from memory.trust.claims import said_in, stated, value_key
from memory.wording import fact_sentence, role_label
from portal.exceptions import AccessDenied, ApplicationError, NotFound
from portal.graphdb import moment, moment_parsed, rows, scalar, vector_search_filters
from portal.outbox import WorkCount, WorkItem
from portal.redis_clients import app_redis

WORD = re.compile(r"\w+")
TOKEN = re.compile(r"[\w'’-]+|[^\w\s]")
POSSESSIVE = re.compile(r"['’]s$")
# "I" and its contractions are capitalised wherever they stand, and name no one.
FIRST_PERSON = re.compile(r"I(?:['’]\w+)?")
# Words a question is made of that say nothing about which message answers it.
STOP_WORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these "
    "they this to was will with what when where who whom which why how did does do has have had been being "
    "were would could should may might can you your his her she him its our from about".split())
# Message recall: how deep each branch is read (the turns next to what they find are read too; 10 deep a bench
# context reads 44 messages where 20 deep read 72, and the quality gate found no drop: docs/benchmarks-log.md), and how
# often a name must occur in the subject's messages to count as the name of someone talking. A context holding
# more messages than the default cap (memory.kinds.MESSAGES) reads each branch one deeper for each more.
RECALL_DEPTH = 10
ADDRESSED_SHARE = 0.05
ADDRESSED_MIN = 5
# Facts, preferences, entities and traces are read this many times as deep as a context may show, and
# at least this deep (memory.context scores them, lexical matches included, then keeps the best).
CANDIDATES_FACTOR = 2
CANDIDATES_MIN = 10
# A name is one party's when at least this share of the messages with it are the other party's, and
# messages the person a question names said themselves count this many times more.
ADDRESSED_BY = 0.8
# A name is a speaker's own when at least this share of the messages with it are labelled with it ("Ann: ...").
LABELLED_SHARE = 0.5
# The query focus counts names among this many of the person's newest messages.
FOCUS_WINDOW = 2000
OTHER_PARTY = {"user": "assistant", "assistant": "user"}
# The access log's queue: a Redis stream of context responses' records (memory.services.access_enqueue).
ACCESS_QUEUE = "access-log:queue"
# Stuck records are counted up to this many (each is read to be counted).
ACCESS_STUCK_COUNT_MAX = 10_000
# Checks other apps register (governance: an erasure is queued, running, or the account is gone).
ERASURE_CHECKS: list[Callable[..., bool]] = []


def subject_erasure_check_register(check: Callable[..., bool]) -> None:
    """Add a check `check(user_id=...) -> bool` that says a subject's memory must not be written now."""
    if check not in ERASURE_CHECKS:
        ERASURE_CHECKS.append(check)


def subject_is_erased(*, user_id: str) -> bool:
    """Return whether a worker must refuse to write memory for this subject now, by every registered check."""
    return any(check(user_id=user_id) for check in ERASURE_CHECKS)


# How many of the person's latest turns the details they gave are read from.
PERSON_WORDS_READ = 500


class PersonWords:
    """The person as memory.trust reads a claim about them (trust.Person): the names their turns are labelled with,
    whether their own words (or theirs and their tools') said no later than `before` hold a value, and the details they
    gave in their latest turns, counting `pending` and `tools_pending`, their turns and their tools' of an append not
    yet written. Each is read from the graph only when a text needs it, once."""

    def __init__(self, *, user_id: str, before: datetime | None = None):
        self.user_id, self.before, self.pending, self.tools_pending = user_id, before, [], []
        self._names: list[str] | None = None
        self._stated: dict[str, set[str]] | None = None

    def names(self) -> list[str]:
        if self._names is None:
            labels = [speaker_split(text)[0] for text in self.pending]
            self._names = list(dict.fromkeys([*(row["name"] for row in rows(cypher.PERSON_NAMES, {
                "user_id": self.user_id})), *filter(None, labels)]))
        return self._names

    def stated(self) -> dict[str, set[str]]:
        if self._stated is None:
            words = [row["content"] for row in rows(cypher.PERSON_WORDS, {
                "user_id": self.user_id, "before": self.before, "limit": PERSON_WORDS_READ})]
            self._stated = stated([*words, *self.pending])
        return self._stated

    def said(self, values: list[str]) -> set[str]:
        return self._held_by(values, roles=["user"], pending=self.pending)

    def given(self, values: list[str]) -> set[str]:
        return self._held_by(values, roles=["user", "tool"], pending=[*self.pending, *self.tools_pending])

    def _held_by(self, values: list[str], *, roles: list[str], pending: list[str]) -> set[str]:
        keyed = [{"raw": v, "digits": k if k.isdigit() else None, "text": v.casefold()}
                 for v in values if (k := value_key(v))]
        found = {row["value"] for row in rows(cypher.PERSON_SAID, {"user_id": self.user_id, "values": keyed,
                                                                    "before": self.before, "roles": roles})}
        return found | {v for v in values if said_in(v, pending)}


def extractions_waiting(*, before: datetime, limit: int) -> list[WorkItem]:
    """Return the messages stored before `before` and not yet extracted, oldest first (the extraction outbox)."""
    return [WorkItem(key=row["uid"], args=(row["uid"], row["user_id"]), since=row["since"])
            for row in rows(cypher.EXTRACTIONS_WAITING, {"before": before, "limit": limit})]


def extractions_count(*, stuck_before: datetime) -> WorkCount:
    """Count the messages waiting for extraction, and those stored before `stuck_before`."""
    return WorkCount(**rows(cypher.EXTRACTIONS_COUNT, {"stuck_before": stuck_before})[0])


def access_queue_waiting(*, before: datetime, limit: int) -> list[WorkItem]:
    """Return the access-log queue as one item of work when its oldest record was queued before `before`, so
    the Beat task's re-dispatch queues a drain if the periodic one has not run."""
    oldest = _access_queue_oldest()
    return [WorkItem(key="queue", args=(), since=oldest)] if oldest and oldest < before and limit else []


def access_queue_count(*, stuck_before: datetime) -> WorkCount:
    """Count the access records queued and not yet written, and those queued before `stuck_before`."""
    client = app_redis()
    stuck = client.xrange(ACCESS_QUEUE, min="-", max=str(int(stuck_before.timestamp() * 1000)),
                          count=ACCESS_STUCK_COUNT_MAX)
    return WorkCount(waiting=client.xlen(ACCESS_QUEUE), stuck=len(stuck), oldest=_access_queue_oldest())


def _access_queue_oldest() -> datetime | None:
    first = app_redis().xrange(ACCESS_QUEUE, count=1)
    if not first:
        return None
    millis = int(first[0][0].split(b"-")[0])
    return datetime.fromtimestamp(millis / 1000, tz=UTC)


# No public id or account email is longer (an email has at most 254 characters).
EMAIL_MAX_CHARS = 254


def subject_find(*, text: str) -> Subject | None:
    """Return the subject with this public id or account email."""
    text = text.strip()
    if not text or len(text) > EMAIL_MAX_CHARS:  # SQLite refuses a LIKE pattern of some thousands
        return None
    return Subject.objects.select_related("account").filter(Q(user_id=text) | Q(account__email__iexact=text)).first()


def subject_for_agent(*, agent: Agent, user_id: str) -> Subject:
    """Return the subject an agent may act for, or refuse the same way whether or not it exists."""
    if "\x00" in user_id:  # no public id holds one, and PostgreSQL cannot be asked about it
        raise AccessDenied("This agent has no access to that user's memory.", {"user_id": user_id})
    grant = access_state_cached(key=("grant", agent.pk, user_id), load=lambda: (
        Grant.objects.select_related("subject").filter(agent=agent, subject__user_id=user_id, revoked_at__isnull=True)
        .first()))
    if grant is None:
        raise AccessDenied("This agent has no access to that user's memory.", {"user_id": user_id})
    if grant.paused_at is not None:
        raise AccessDenied("The user has paused this agent: it can neither read nor write their memory.",
                           {"user_id": user_id, "paused": True})
    return grant.subject


def consented_categories(*, subject: Subject, agent: Agent | None) -> set[str]:
    """Return the categories the subject consents to for this agent: the newest ledger row decides."""
    return set(access_state_cached(key=("consent", subject.pk, agent.pk if agent else None),
                                   load=lambda: _consented_categories(subject=subject, agent=agent)))


def consent_require(*, subject: Subject, agent: Agent, category: str) -> None:
    """Refuse an agent the subject has withdrawn consent to this category of memory from."""
    if category not in consented_categories(subject=subject, agent=agent):
        raise AccessDenied(f"The user has withdrawn consent for '{category}' memory.",
                           {"category": category, "consent": False})


def _consented_categories(*, subject: Subject, agent: Agent | None) -> frozenset[str]:
    records = (
        ConsentRecord.objects.filter(subject=subject, agent__in=[agent] if agent else [])
        | ConsentRecord.objects.filter(subject=subject, agent__isnull=True)
    ).order_by("category", "-created_at", "-pk").values_list("category", "granted")
    decided = {}
    for category, granted in records:
        decided.setdefault(category, granted)
    return frozenset(category for category in CATEGORIES if decided.get(category))


def retention_days(*, subject: Subject | None, agent: Agent | None) -> dict[str, int | None]:
    """Return per category how many days memory is kept for this agent (None: forever), the shortest of the
    staff default, the agent's stricter policy and the person's own choice; without an agent, for the person."""
    return dict(access_state_cached(key=("retention", subject.pk if subject else None, agent.pk if agent else None),
                                    load=lambda: _retention_days(subject=subject, agent=agent)))


def _retention_days(*, subject: Subject | None, agent: Agent | None) -> dict[str, int | None]:
    days: dict[str, int | None] = dict.fromkeys(CATEGORIES)
    policies = RetentionPolicy.objects.filter(Q(agent__isnull=True) | Q(agent=agent) if agent else Q(agent__isnull=True))
    choices = RetentionChoice.objects.filter(subject=subject) if subject else RetentionChoice.objects.none()
    for category, kept in [*policies.values_list("category", "days"), *choices.values_list("category", "days")]:
        if kept is not None and (days[category] is None or kept < days[category]):
            days[category] = kept
    return days


def retention_cutoffs(*, subject: Subject | None, agent: Agent | None,
                      at: datetime | None = None) -> dict[str, datetime | None]:
    """Return per category the oldest moment still kept (None: kept forever), for this agent or, without one,
    for the person; every read of memory leaves out what is older (memory.cypher.kept says how old an item is)."""
    now = at or timezone.now()
    return {category: now - timedelta(days=kept) if kept else None
            for category, kept in retention_days(subject=subject, agent=agent).items()}


def person_cutoffs(*, user_id: str) -> dict[str, datetime | None]:
    """Return the retention cutoffs of the person with this id, as their own pages apply them."""
    return retention_cutoffs(subject=Subject.objects.filter(user_id=user_id).first(), agent=None)


def _cutoffs(user_id: str, cutoffs: dict[str, datetime | None] | None) -> dict[str, datetime | None]:
    return person_cutoffs(user_id=user_id) if cutoffs is None else cutoffs


def _encode_cursor(t: date | datetime, uid: str) -> str:
    raw = json.dumps([t.isoformat(), uid])
    return base64.urlsafe_b64encode(raw.encode()).decode()


def _decode_cursor(cursor: str) -> tuple:
    try:
        t, uid = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        return datetime.fromisoformat(t), str(uid)
    except (ValueError, TypeError) as exc:
        raise ApplicationError("Invalid cursor; pass back the `next` value of a previous page.",
                               {"fields": {"cursor": [str(exc)]}})


def item_list(*, user_id: str, kind: str, cursor: str | None = None, limit: int = 50,
              cutoffs: dict[str, datetime | None] | None = None, include_retracted: bool = True) -> dict:
    """Return one page of a subject's items of a kind within retention (the person's own unless `cutoffs`
    says whose), newest first, with the next page's cursor; each item says since when it is kept.
    Without `include_retracted`, the retracted versions of facts and preferences are left out."""
    after_t, after_uid = _decode_cursor(cursor) if cursor else (None, None)
    found = rows(kind_get(kind).list_query, {"user_id": user_id, "after_t": after_t, "after_uid": after_uid,
                                             "limit": limit + 1, "cutoffs": _cutoffs(user_id, cutoffs),
                                             "include_retracted": include_retracted})
    page = found[:limit]
    next_cursor = _encode_cursor(page[-1]["sort_key"], page[-1]["uid"]) if len(found) > limit else None
    return {"items": [_item(row) for row in page], "next": next_cursor}


def item_get(*, user_id: str, kind: str, uid: str, cutoffs: dict[str, datetime | None] | None = None) -> dict:
    """Return one item within retention; one past it is not found, exactly like a missing one."""
    found = rows(kind_get(kind).get_query, {"user_id": user_id, "uid": uid, "cutoffs": _cutoffs(user_id, cutoffs)})
    if not found:
        raise NotFound(f"No {kind_get(kind).item_title.lower()} with that id.")
    return _item(found[0])


def _item(row: dict) -> dict:
    """Return an item as the API and the pages read it; a derived one says whose words it is (trust.item_source)."""
    item = {"uid": row["uid"], **row["item"], "kept_since": row["kept_since"]}
    if "supports" in item:
        item["source"] = item_source(supports=item.pop("supports"), corrected_by=item.get("corrected_by"))
    return item


def item_search(*, user_id: str, kind: str, text: str, limit: int = 50,
                cutoffs: dict[str, datetime | None] | None = None) -> list[dict]:
    """Return the subject's items of a kind within retention whose text contains `text`, case-insensitively."""
    found = rows(kind_get(kind).search_query, {"user_id": user_id, "q": text.lower(), "limit": limit,
                                               "cutoffs": _cutoffs(user_id, cutoffs)})
    return [{"uid": row["uid"], **row["item"]} for row in found]


def context_recall(*, user_id: str, session_id: str | None, sections: dict[str, bool], limits: dict[str, int],
                   embedding: list[float] | None,
                   lucene: str | None = None, entity_lucene: str | None = None,
                   during: tuple[datetime, datetime] | None = None,
                   as_of: datetime | None = None, cutoffs: dict[str, datetime | None], depth: int | None = None) -> dict:
    """Read all a context may use in one statement (cypher.CONTEXT_READ, or CONTEXT_READ_SEARCH where the
    server filters vector searches inside the index): its candidates, each with its similarity to
    `embedding`, for memory.context to score.

    `sections` says which of history (the session's last `limits["history"]` turns), recall (messages
    found by meaning, by words and, with `during`, by meaning among those said then, `depth` deep each (by default
    RECALL_DEPTH, deeper for a context of more messages than the default cap), and the turns next to them),
    long_term (facts, preferences and entities) and reasoning (traces) to read; each long-term kind and traces come `candidates_pool(limit)` deep by similarity, and with long_term
    the person's standing instructions (`instructions`, up to `limits["instructions"]`, oldest first). `branches`
    holds what each of recall's branches found ({uid, score}, best first), `messages` every candidate
    message by uid, `neighbours` which found message each turn next to one is next to.
    """
    after, before = during or (None, None)
    depth = depth or RECALL_DEPTH + max(0, limits["messages"] - MESSAGES.default_limit)
    found = rows(cypher.CONTEXT_READ_SEARCH if vector_search_filters() else cypher.CONTEXT_READ, {
        "user_id": user_id, "session_id": session_id, "sections": sections, "history_limit": limits["history"],
        "embedding": embedding, "lucene": lucene,
        "entity_lucene": entity_lucene, "after": after, "before": before, "depth": depth,
        **{f"{kind}_limit": candidates_pool(limits[kind]) for kind in ("facts", "preferences", "entities", "traces")},
        "instruction": INSTRUCTION, "instructions_limit": limits.get("instructions", 0),
        "as_of": moment(as_of) if as_of else None, "cutoffs": cutoffs,
        "exact_scan_max": settings.RECALL_EXACT_SCAN_MAX,
    })[0]
    for message in (*found["recent"], *found["messages"]):
        message["created_at"] = moment_parsed(message["created_at"])
    branches = {"vector": found["vector"]}
    if during:
        branches["time"] = found["time"]
    if lucene:
        branches["fulltext"] = found["fulltext"]
    return {"recent": found["recent"], "next_seq": found["next_seq"], "branches": branches,
            "messages": {message["uid"]: message for message in found["messages"]} if sections["recall"] else {},
            "neighbours": found["neighbours"],
            **{kind: found[kind] for kind in ("facts", "preferences", "instructions", "entities", "traces")}}


def candidates_pool(limit: int) -> int:
    """Return how many candidates of a kind to read for a context that may show `limit` of them: more than it
    shows, so that an item the question's words pick out can pass one closer in meaning."""
    return max(CANDIDATES_FACTOR * limit, CANDIDATES_MIN) if limit else 0


def messages_nearest(*, user_id: str, embedding: list[float], limit: int,
                     during: tuple[datetime, datetime] | None = None,
                     cutoffs: dict[str, datetime | None] | None = None) -> list[dict]:
    """Return the subject's messages nearest to the embedding as the context's recall finds them, {uid, score}
    best first: its vector branch, or with `during` its branch over the messages said in that span.

    On Neo4j 2026.01+ a person holding more than RECALL_EXACT_SCAN_MAX messages is searched through the
    filtered index; everyone else is scanned (by each message's copy in signed bytes). This is what recall@10
    against exact search is measured on.
    """
    limits = {"history": 0, "messages": limit, "facts": 0, "preferences": 0, "entities": 0, "traces": 0}
    sections = {"history": False, "recall": True, "long_term": False, "reasoning": False}
    found = context_recall(user_id=user_id, session_id=None, sections=sections, limits=limits, embedding=embedding,
                           during=during, cutoffs=_cutoffs(user_id, cutoffs), depth=max(limit, RECALL_DEPTH))
    return found["branches"]["time" if during else "vector"][:limit]


def said_by(message: dict, speaker: str) -> bool:
    """Return whether a message is the speaker's: a party (its role) or a name its turns are labelled with."""
    label = message.get("speaker") or ""
    return message["role"] == speaker or label == speaker or label.startswith(speaker + " ")


def query_focus(*, user_id: str, text: str, cutoffs: dict[str, datetime | None] | None = None) -> dict:
    """Return the query for recall in the subject's memory without the names their conversations keep
    using, and whose those names are when they all are one speaker's: a party (`user` or `assistant`),
    or the name a speaker's turns are labelled with.

    Asked "When did Caroline join the group?", Caroline's own messages say "I" (or "Caroline: I ...")
    and the other party's say "Caroline!", so the name draws greetings rather than the answer, and
    tells whose messages hold it. A capitalised word (not the first) is such a name when at least
    `ADDRESSED_SHARE` of the subject's newest `FOCUS_WINDOW` messages, and `ADDRESSED_MIN` of them,
    contain it as written ("I" is no name).
    """
    tokens = TOKEN.findall(text)
    words = [t for t in tokens if t[0].isalnum()]
    names = sorted({POSSESSIVE.sub("", w) for w in words[1:] if w[:1].isupper() and not FIRST_PERSON.fullmatch(w)})
    if not names:
        return {"text": text, "speaker": None}
    addressed = [row for row in rows(cypher.MESSAGE_WORD_COUNTS, {"user_id": user_id, "words": names,
                                                                  "window": FOCUS_WINDOW,
                                                                  "cutoffs": _cutoffs(user_id, cutoffs)})
                 if row["messages"] >= max(ADDRESSED_MIN, ADDRESSED_SHARE * row["total"])]
    if not addressed:
        return {"text": text, "speaker": None}
    owners = {_name_owner(row) for row in addressed}
    left_out = {row["word"] for row in addressed}
    return {"text": " ".join(t for t in tokens if POSSESSIVE.sub("", t) not in left_out),
            "speaker": owners.pop() if len(owners) == 1 else None}


def _name_owner(counts: dict) -> str | None:
    """Return whose name it is: the speaker whose turns are labelled with it, else the party (a role) other
    than the one that nearly always says it."""
    if counts["labelled"] >= LABELLED_SHARE * counts["messages"]:
        return counts["word"]
    for role, other in OTHER_PARTY.items():
        if counts[f"by_{role}"] >= ADDRESSED_BY * counts["messages"]:
            return other
    return None


def lucene_query(*, text: str, user_id: str, fields: tuple[str, ...]) -> str | None:
    """Return a tenant-filtered Lucene query for the words of `text`, or None when it has none.

    Only word characters survive and each word is quoted, so no operator or special character
    from the text can reach Lucene.
    """
    words = list(dict.fromkeys(w.lower() for w in WORD.findall(text) if len(w) > 2 and w.lower() not in STOP_WORDS))
    words = words[:32]
    if not words:
        return None
    terms = " OR ".join(f'"{w}"' for w in words)
    matches = " OR ".join(f"{field}:({terms})" for field in fields)
    return f'user_id:"{user_id}" AND ({matches})'


def nam_references(*, user_id: str) -> dict[str, set[str]]:
    """Return how neo4j-agent-memory knew the subject, adopted or not: the identifier and NAM's id of their User
    node (`ids`), and the names its attributes give them (`names`). NAM's facts and entities name a person by
    these, not by user_id."""
    ids, names = set(), set()
    for row in rows(adoption_cypher.NAM_REFERENCES, {"user_id": user_id}):
        ids |= {row["identifier"], row["nam_id"]} - {None}
        names |= person_names(row["attributes"])
    return {"ids": ids, "names": names}


def unowned_counts() -> dict[str, int]:
    """Return how many memory nodes of each label have no owner (no `user_id`), as adopt_nam leaves them."""
    return {row["label"]: row["count"] for row in
            rows(adoption_cypher.UNOWNED_COUNTS, {"labels": list(adoption_cypher.MEMORY_LABELS)})}


def expired_counts(*, user_id: str, cutoffs: dict[str, datetime | None]) -> dict[str, int]:
    """Return how many of the subject's items of each kind are past these cutoffs (what the next retention run
    deletes)."""
    return {kind.name: scalar(kind.expired_count_query, {"user_id": user_id, "cutoffs": cutoffs}) for kind in KINDS}


def message_uids(*, user_id: str) -> list[str]:
    """Return the uids of all the subject's messages."""
    return [row["uid"] for row in rows(cypher.MESSAGE_UIDS, {"user_id": user_id})]


def conversation_list(*, user_id: str, limit: int = 50) -> list[dict]:
    """Return the subject's conversations, the latest said in first, each with how many messages it holds within
    retention."""
    return rows(cypher.CONVERSATIONS_RECENT, {"user_id": user_id, "limit": limit,
                                              "cutoffs": person_cutoffs(user_id=user_id)})


def conversation_get(*, user_id: str, uid: str) -> dict:
    """Return a conversation with its messages within retention."""
    found = rows(cypher.CONVERSATION_MESSAGES, {"user_id": user_id, "uid": uid,
                                                "cutoffs": person_cutoffs(user_id=user_id)})
    if not found:
        raise NotFound("No conversation with that id.")
    conversation = found[0]
    return {**conversation, "messages": [m for m in conversation["messages"] if m["uid"]]}


def conversations_of_sessions(*, user_id: str, sessions: set[str]) -> dict[str, dict]:
    """Return the subject's conversations of these sessions by session id (uid, title)."""
    return {row["session_id"]: row for row in rows(cypher.CONVERSATIONS_OF_SESSIONS, {
        "user_id": user_id, "sessions": sorted(sessions)})} if sessions else {}


def entity_neighbourhood(*, user_id: str, uid: str, limit: int = 25) -> dict:
    """Return an `entity` with those it is `related` to (each its `entity`, the `link` between them and whether it is
    `outgoing`), the `facts` about it and the `messages` that mention it, within the person's retention: whole
    nodes, as instances of memory.graph."""
    found = rows(cypher.ENTITY_NEIGHBOURHOOD, {"user_id": user_id, "uid": uid, "limit": limit,
                                               "cutoffs": person_cutoffs(user_id=user_id)}, instances=True)
    if not found:
        raise NotFound("No entity with that id.")
    return found[0]


def trace_steps(*, user_id: str, uid: str) -> list[dict]:
    """Return a trace's steps in order: each its `order`, its `step` (a ReasoningStep) and its `tool_calls`
    (ToolCalls, arguments and result decoded)."""
    return rows(cypher.TRACE_STEPS, {"user_id": user_id, "uid": uid}, instances=True)


def facts_as_of(*, user_id: str, as_of: datetime) -> list[Fact]:
    """Return the subject's facts that held at a past moment, as the context endpoint's `as_of` sees them."""
    return [row["fact"] for row in rows(cypher.FACTS_AS_OF, {"user_id": user_id, "as_of": moment(as_of)},
                                        instances=True)]


def standing_instructions(*, user_id: str) -> list[Preference]:
    """Return the person's standing instructions that hold now, within retention, oldest first: what every context
    serves in a section of their own until they revoke it."""
    return [row["preference"] for row in rows(cypher.STANDING_INSTRUCTIONS, {
        "user_id": user_id, "instruction": INSTRUCTION, "cutoffs": _cutoffs(user_id, None)}, instances=True)]


def correction_list(*, subject: Subject, status: str | None = None):
    """Return the subject's corrections, newest first, optionally only those of one status."""
    found = Correction.objects.filter(subject=subject).select_related("agent").order_by("-created_at", "-pk")
    return found.filter(status=status) if status else found


def correction_get(*, subject: Subject, public_id) -> Correction:
    correction = Correction.objects.select_related("subject", "agent").filter(subject=subject,
                                                                               public_id=public_id).first()
    if correction is None:
        raise NotFound("No correction with that id.")
    return correction


def held_list(*, subject: Subject | None = None, status: str | None = None):
    """Return held memory (one person's, or everyone's for staff), waiting first, then the newest decided."""
    found = HeldMemory.objects.select_related("agent", "subject__account").order_by("-created_at", "-pk")
    found = found.filter(subject=subject) if subject else found
    return found.filter(status=status) if status else found


def held_get(*, public_id, subject: Subject | None = None) -> HeldMemory:
    found = HeldMemory.objects.select_related("subject", "agent").filter(public_id=public_id)
    held = (found.filter(subject=subject) if subject else found).first()
    if held is None:
        raise NotFound("Nothing held with that id.")
    return held


def item_corrections(*, subject: Subject, uid: str) -> list[Correction]:
    """Return the corrections of an item and the one that made it, oldest first: the item's history."""
    return list(Correction.objects.filter(Q(target_uid=uid) | Q(version_uid=uid), subject=subject)
                .select_related("agent").order_by("created_at", "pk"))


def _item_text(label: str, row: dict) -> str:
    parts = row["parts"]
    if label == "Fact":
        return fact_sentence(**parts)
    if label == "Message":
        return f"{role_label(parts['role'])}: {row['text']}"
    return row["text"]


def item_texts(*, user_id: str, uids: dict[str, set[str]]) -> dict[str, str]:
    """Return the text a person reads for each of their items named by kind and uid, within retention."""

    cutoffs = person_cutoffs(user_id=user_id)
    return {row["uid"]: _item_text(kind_get(kind).label, row) for kind, wanted in uids.items() if wanted
            for row in rows(cypher.ITEMS_TEXT[kind_get(kind).label], {"user_id": user_id, "uids": sorted(wanted),
                                                                      "cutoffs": cutoffs})}
