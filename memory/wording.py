"""How memory reads to a person: facts as sentences, and the human names of what the graph calls by keys.

One table of phrasings per predicate, with a fallback that reads well enough for a predicate it does
not know, and the labels of consent categories, entity types, statuses, roles and fields: every page,
mail and export that a person reads takes its words from here, never from the graph's names.
"""

import re
from dataclasses import dataclass
from datetime import date, datetime

from django.utils import formats, timezone

from memory import trust

# How a fact names the person it is about (memory.extraction stores every "I" as this).
PERSON = "user"
# A name a program gave: lower-case words joined by underscores.
NAME = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)+")
# What a sentence of a fact is made of.
FACT_PARTS = ("subject", "predicate", "object", "valid_from", "valid_until", "status")


@dataclass(frozen=True)
class Phrase:
    """A predicate as words: said of you ("live in"), of someone else ("lives in"), and once it stopped ("lived in")."""

    you: str
    other: str
    past: str


PHRASES = {
    "EMPLOYED_BY": Phrase("work at", "works at", "worked at"),
    "RESIDES_AT": Phrase("live in", "lives in", "lived in"),
    "LOCATED_AT": Phrase("are in", "is in", "was in"),
    "HEADQUARTERS_AT": Phrase("are headquartered in", "is headquartered in", "was headquartered in"),
    "SUBSIDIARY_OF": Phrase("are a subsidiary of", "is a subsidiary of", "was a subsidiary of"),
    "MEMBER_OF": Phrase("are a member of", "is a member of", "was a member of"),
    "PART_OF": Phrase("are part of", "is part of", "was part of"),
    "OWNS": Phrase("own", "owns", "owned"),
    "OWNED_BY": Phrase("are owned by", "is owned by", "was owned by"),
    "USES": Phrase("use", "uses", "used"),
    "PLAYS": Phrase("play", "plays", "played"),
    "KNOWS": Phrase("know", "knows", "knew"),
    "PARTNER_WITH": Phrase("are partners with", "is partners with", "were partners with"),
    "PARENT_OF": Phrase("are the parent of", "is the parent of", "was the parent of"),
    "HAS_ROLE": Phrase("work as", "works as", "worked as"),
    "ASSIGNED_TO": Phrase("are assigned to", "is assigned to", "was assigned to"),
    "DEPENDS_ON": Phrase("depend on", "depends on", "depended on"),
    "FROM": Phrase("are from", "is from", "was from"),
    "VISITED": Phrase("visited", "visited", "visited"),
    "VOLUNTEERS_AT": Phrase("volunteer at", "volunteers at", "volunteered at"),
    "PARTICIPATED_IN": Phrase("took part in", "took part in", "took part in"),
    "INVOLVED": Phrase("were involved in", "involves", "involved"),
    "OCCURRED_AT": Phrase("took place at", "takes place at", "took place at"),
    "ALIAS_OF": Phrase("are also called", "is also called", "was also called"),
    "RELATED_TO": Phrase("are related to", "is related to", "was related to"),
}

CATEGORY_LABELS = {
    "history": "Conversation history",
    "long_term": "Long-term memory",
    "reasoning": "Reasoning traces",
}
CATEGORY_HELP = {
    "history": "the messages of your conversations",
    "long_term": "facts, preferences and the people, places and things you mention",
    "reasoning": "how agents worked through tasks for you",
}
# What a person is told after choosing what an agent's own words and its tools may add (models.UNTRUSTED_WRITES).
UNTRUSTED_WRITES_SAID = {
    "apply": "What {agent} and its tools say about you is added to your memory; payment, contact, login and "
             "identity details and standing instructions still wait for you.",
    "hold": "What {agent} and its tools say about you waits for you before it is added to your memory.",
    "drop": "Nothing {agent} or its tools say about you is added to your memory; your own words still are.",
}
# Whose words an item of memory is (memory.trust's sources), as the person reads it.
SOURCE_WORDS = {"person": "your own words", "correction": "a correction", "import": "another memory system",
                "agent": "the agent’s own note", "assistant": "the assistant’s words", "tool": "a tool’s output",
                "system": "a system message"}
# What a person is told after deciding on held memory, by the state it is in now.
HELD_DECIDED = {"approved": "Added to your memory: agents are given it from now on.",
                "rejected": "Not added: no agent is given it.",
                "held": "Undone: it waits for you again, and nothing of it is in your memory."}
# What an agent may do (memory.models.SCOPES), as staff read it on the agent's page.
SCOPE_LABELS = {"context:read": "read memory", "messages:write": "remember conversations",
                "traces:write": "record how it worked", "knowledge:read": "search knowledge",
                "memory:correct": "propose corrections", "memory:forget": "forget items"}
ENTITY_TYPE_LABELS = {"PERSON": "person", "ORGANIZATION": "organisation", "LOCATION": "place", "EVENT": "event",
                      "OBJECT": "thing", "UNTYPED": "not sure what kind"}
STATUS_LABELS = {"current": "current", "superseded": "replaced by a newer one", "retracted": "corrected",
                 "proposed": "waiting for a decision", "applied": "applied", "rejected": "rejected",
                 "undone": "undone", "pending": "waiting", "confirmed": "confirmed", "auto": "automatic",
                 "done": "done", "failed": "failed", "duplicate": "a repeat", "held": "waiting for you",
                 "approved": "approved"}
ROLE_LABELS = {"user": "You", "assistant": "Agent", "system": "System", "tool": "Tool"}
# Whose words a message of each role holds, and a remembered item from each other source (memory.trust's), as the
# context text says it to the model.
SPEAKER_WORDS = {"user": "user", "assistant": "the assistant", "system": "a system message", "tool": "a tool",
                 trust.AGENT: "the agent's own note", trust.CORRECTION: "a correction"}
FIELD_LABELS = {
    "subject": "About", "predicate": "Relation", "object": "Value", "confidence": "Confidence",
    "valid_from": "Since", "valid_until": "Until", "recorded_at": "Learnt", "expired_at": "Replaced",
    "status": "Status", "corrected_by": "Corrected by", "role": "Said by", "content": "Message",
    "seq": "Turn", "client_id": "Agent's message id", "agent_id": "Agent", "created_at": "When",
    "extraction_status": "Memory taken from it", "extraction_error": "Why it failed", "category": "Category",
    "preference": "Preference", "context": "Context", "name": "Name", "type": "Type", "aliases": "Also called",
    "description": "Description", "session_id": "Conversation", "task": "Task", "outcome": "Outcome",
    "success": "Succeeded", "started_at": "Started", "completed_at": "Completed",
    "tool_name": "Tool", "source_url": "Read from", "held_reasons": "Left out of what agents are given, because it",
    "withheld": "No longer given to agents, because",
    "source": "Where it came from",
}


def words(key: str) -> str:
    """Return a key as lower-case words ("HAS_SHOE_SIZE" -> "has shoe size", "long_term" -> "long term")."""
    return str(key).replace("_", " ").strip().lower()


def name_words(text: str) -> str:
    """Return a name a program gave (a tool's "search_trains") as words, "search trains"; other text as it is."""
    return words(text) if NAME.fullmatch(text or "") else text


def category_label(category: str) -> str:
    return CATEGORY_LABELS.get(category, words(category).capitalize())


def entity_type_label(entity_type: str) -> str:
    return ENTITY_TYPE_LABELS.get(entity_type, words(entity_type))


def status_label(status: str) -> str:
    return STATUS_LABELS.get(status, words(status))


def role_label(role: str) -> str:
    return ROLE_LABELS.get(role, words(role).capitalize())


def speaker_words(role: str, *, label: str | None = None) -> str:
    """Return whose words a message holds, for the model: the name its turn is labelled with in a conversation
    between people ("Caroline"), else its role ("user", not "you": the model reads it, "the assistant"); a tool
    or system message says so before any name it gives itself ("a tool (Caroline)"). A remembered item's source
    reads the same way ("a tool (web_search)", "a correction")."""
    said = SPEAKER_WORDS.get(role, words(role))
    if not label:
        return said
    return label if role in ("user", "assistant") else f"{said} ({label})"


def field_label(name: str) -> str:
    return FIELD_LABELS.get(name, words(name).capitalize())


def day(value) -> str:
    """Return a stated date or a moment as its day, in the reader's time zone and the site's date format."""
    if isinstance(value, str):
        value = moment_read(value)
    if isinstance(value, datetime):
        value = timezone.localtime(value) if timezone.is_aware(value) else value
        value = value.date()
    return formats.date_format(value) if isinstance(value, date) else ""


def moment(value):
    """Return a moment in the reader's time zone, a stated date as its day, ISO text as either; else the value."""
    if isinstance(value, str):
        value = moment_read(value)
    if isinstance(value, datetime):
        return formats.date_format(timezone.localtime(value) if timezone.is_aware(value) else value,
                                   "DATETIME_FORMAT")
    if isinstance(value, date):
        return formats.date_format(value)
    return value


def moment_read(text: str) -> date | datetime | str:
    """Return an ISO date or moment kept as text (a correction's stored values) as a date or datetime."""
    try:
        return datetime.fromisoformat(text) if "T" in text else date.fromisoformat(text)
    except ValueError:
        return text


IRREGULAR = {"is": "are", "has": "have", "was": "were", "does": "do"}


def _said_of_you(verb: str) -> str:
    """Return a third-person verb phrase as said to "you": "likes to climb" -> "like to climb"."""
    first, _, rest = verb.partition(" ")
    if first in IRREGULAR:
        first = IRREGULAR[first]
    elif first.endswith("ies"):
        first = first[:-3] + "y"
    elif first.endswith(("ses", "shes", "ches", "xes", "zes", "oes")):
        first = first[:-2]
    elif first.endswith("s") and not first.endswith("ss"):
        first = first[:-1]
    return f"{first} {rest}".strip()


def _first_upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def fact_text(fact, *, person: str = "you") -> str:
    """Return a fact node (memory.graph.Fact) as a sentence (fact_sentence)."""
    return fact_sentence(**{name: getattr(fact, name) for name in FACT_PARTS}, person=person)


def fact_sentence(*, subject: str, predicate: str, object: str, valid_from=None, valid_until=None,
                  status: str = "current", person: str = "you", **_) -> str:
    """Return a fact as a sentence: "You live in Porto since 12 Nov 2026", "Acme Corp is in Lisbon".

    `person` names whom the facts are about: "you" on their own pages, "the person" on staff pages. A fact
    that stopped holding (superseded, withdrawn or with an end) reads in the past, with its span.
    """
    who = person if subject == PERSON else subject
    what = person if object == PERSON else object
    you = who == "you"
    ended = bool(valid_until) or status in ("superseded", "retracted")
    phrase = PHRASES.get(predicate)
    if phrase is not None:
        verb = phrase.past if ended else (phrase.you if you else phrase.other)
        sentence = f"{_first_upper(who)} {verb} {what}"
    elif predicate.startswith("HAS_"):
        owner = "Your" if you else f"{_first_upper(who)}’s"
        sentence = f"{owner} {words(predicate[4:])} {'was' if ended else 'is'} {what}"
    else:
        verb = words(predicate)
        sentence = f"{_first_upper(who)} {_said_of_you(verb) if you else verb} {what}"
    if valid_from:
        sentence += f" {'from' if ended else 'since'} {day(valid_from)}"
    if valid_until:
        sentence += f" until {day(valid_until)}"
    return sentence


def fact_line(*, subject: str, predicate: str, object: str) -> str:
    """Return a fact as one plain line, as the context prints it and its vector is made from ("user works at Acme
    Corp"): the subject as stored, the predicate in words."""
    return f"{subject} {predicate_words(predicate)} {object}"


def predicate_words(predicate: str, *, you: bool = False) -> str:
    """Return how a predicate reads after its subject ("works at"; said of you, "work at"), for a label."""
    phrase = PHRASES.get(predicate)
    if phrase is not None:
        return phrase.you if you else phrase.other
    return words(predicate)


def provenance(corrected_by: str, *, agent_names: dict[str, str], person: str = "you") -> str:
    """Return who made a correction in words: "Demo assistant, accepted by you", "a reviewer (ana@example.com)".

    `corrected_by` is what memory.services records ("agent <id>", "the person", "reviewer <email>", joined
    by ", accepted by "); `agent_names` names the agents it may mention by id.
    """
    def part(text: str) -> str:
        if text == "the person":
            return person
        if text.startswith("agent "):
            return agent_names.get(text.removeprefix("agent "), "an agent that was removed")
        if text.startswith("reviewer "):
            return f"a reviewer ({text.removeprefix('reviewer ')})"
        return text

    return ", accepted by ".join(part(text) for text in corrected_by.split(", accepted by ")) if corrected_by else ""


# Held memory's reasons (memory.trust) that say again what a stronger one beside them says: shown as that one only.
REASON_COVERED_BY = {"touches money, logins, contact or identity details": trust.DETAILS}
# How many reasons a held item shows; the rest are counted.
HELD_REASONS_SHOWN = 3
YOU = re.compile(r"\b(?:you|your|yours|You|Your)\b")
THE_PERSON = {"you": "the person", "your": "their", "yours": "theirs", "You": "The person", "Your": "Their"}


def about_the_person(text: str, *, person: str = "you") -> str:
    """Return words written to the person ("speaks for you", "your phone") as a staff page says them, about "the
    person"; for the person themselves, as they are."""
    return text if person == "you" else YOU.sub(lambda m: THE_PERSON[m.group()], text)


def held_reasons_said(reasons: list[str], *, person: str = "you") -> str:
    """Return why held memory is held, each reason once (one a stronger one covers left out), the strongest few."""
    shown = [r for r in dict.fromkeys(reasons) if REASON_COVERED_BY.get(r) not in reasons]
    said = "; ".join(about_the_person(r, person=person) for r in shown[:HELD_REASONS_SHOWN])
    more = len(shown) - HELD_REASONS_SHOWN
    return f"{said}; and {more} other sign{'s' if more > 1 else ''}" if more > 0 else said


def said_of_the_person(sentence: str) -> str:
    """Return a sentence said to the person ("You live in Porto", "Your phone is ...") as said of them, for staff
    ("The person lives in Porto", "The person’s phone is ...")."""
    if sentence.startswith("Your "):
        return "The person’s " + sentence[5:]
    if not sentence.startswith("You "):
        return sentence
    rest = sentence[4:]
    for phrase in PHRASES.values():
        if rest.startswith(phrase.you + " ") and phrase.you != phrase.other:
            return f"The person {phrase.other}{rest[len(phrase.you):]}"
    first, _, tail = rest.partition(" ")
    third = {"are": "is", "have": "has", "were": "was", "do": "does"}.get(first) or (
        first + "es" if first.endswith(("s", "sh", "ch", "x", "z", "o")) else
        first[:-1] + "ies" if first.endswith("y") and first[-2:-1] not in "aeiou" else first + "s")
    return f"The person {third} {tail}".rstrip()


# The audit log's actions (portal.audit's), as staff read them: what the actor did.
AUDIT_ACTIONS = {
    "grant.create": "gave an agent access", "grant.revoke": "revoked an agent's access", "grant.pause": "paused an agent",
    "grant.resume": "resumed an agent", "grant.correct_allow": "let an agent correct directly",
    "grant.correct_propose_only": "let an agent only propose corrections",
    "grant.untrusted_writes": "chose what an agent's tools may add", "client.connect": "connected an app",
    "consent.grant": "gave consent", "consent.withdraw": "withdrew consent",
    "export.request": "asked for a download of their memory", "erasure.request": "asked for an erasure",
    "erasure.done": "finished an erasure", "erasure.finish": "finished an erasure by deleting what was left",
    "retention.choose": "chose how long memory is kept", "retention.apply": "deleted memory past its time",
    "retention.policy": "set how long memory is kept", "merge.approve": "approved a merge",
    "merge.reject": "rejected a merge", "merge.undo": "undid a merge", "fact.confirm": "confirmed a superseded fact",
    "fact.revert": "reverted a superseded fact", "correction.propose": "proposed a correction",
    "correction.accept": "accepted a correction", "correction.reject": "rejected a correction",
    "correction.apply": "corrected an item", "correction.undo": "undid a correction",
    "held.approve": "added held memory", "held.reject": "did not add held memory",
    "held.undo": "undid a decision on held memory", "token.issue": "issued a token", "token.revoke": "revoked a token",
    "trace.delete": "deleted a reasoning trace", "message.delete": "forgot a message", "fact.delete": "forgot a fact",
    "preference.delete": "forgot a preference", "entity.delete": "forgot a person, place or thing",
    "memory.view": "saw memory on a staff page", "subject.adopt": "adopted memory another system wrote",
    "subject.claim": "linked adopted memory to an account",
}
# What an audit row's fields are called, and its counts' names, as staff read them.
AUDIT_FIELDS = {
    "paused": "paused", "granted": "access", "consent": "consent to", "may_correct": "may correct directly",
    "untrusted_writes": "what its tools may add", "scope": "what", "category": "part of memory",
    "categories": "parts of memory", "scopes": "it may", "paused_grants": "agents paused", "status": "status",
    "deleted": "deleted", "residue": "left after the final check", "residue_nodes_deleted": "left-overs deleted",
    "left": "left", "days": "days kept", "exports_expired": "downloads expired", "nodes": "items", "agent": "agent",
    "name": "name", "expires_at": "expires", "revoked": "revoked", "writer": "written by", "account": "account",
    "client": "app", "correction": "correction", "fields": "fields", "version": "new version", "by": "by",
    "policy_version": "consent wording of", "neo4j_nodes": "memory items", "redis_keys": "cache entries",
    "broker_messages": "queued tasks",
    "export_files": "download files", "database_rows": "records", "messages": "messages", "facts": "facts",
    "preferences": "preferences", "entities": "people and things", "traces": "reasoning traces",
}
