"""What the memory a message would add becomes when its words are not the person's: applied, held for the person
(memory.models.HeldMemory: nothing of it is in the graph until they approve), or dropped.

The person's own turns always apply. The agent's policy (Grant.effective_untrusted_writes) decides for the rest,
and the strict rule holds whatever the policy: an untrusted message whose text memory.trust flagged, a fact of
the person's payment, login, contact or identity details, a standing instruction, or a value that would replace
one the person stated themselves, waits for them.
"""

from memory import cypher
from memory.extraction import Extraction
from memory.models import Agent, Grant, HeldMemory, HeldStatus, Subject
from memory.selectors import PersonWords
from memory.trust import (ACCEPTED_BY, AGENT, CORRECTED_BY_AGENT, ROLE_SOURCES, TRUSTED, fact_reasons,
                          preference_reasons)
from memory.wording import fact_sentence
from portal import graphdb

APPLY, HOLD, DROP = "apply", "hold", "drop"
REVIEWED = "comes from an agent whose additions you review"
REPLACES_YOURS = "would replace what you said yourself"
DROPPED = "You keep none of what this agent and its tools add."


def message_source(message: dict) -> str:
    """Return whose words a message's memory is: its explicit fields are the agent's, whatever the role."""
    return AGENT if message["explicit"] else ROLE_SOURCES[message["role"]]


def memory_hold(*, subject: Subject, agent: Agent | None, message: dict, extraction: Extraction) -> str:
    """Decide what the memory a message would add becomes (APPLY, HOLD or DROP); a hold is written as a HeldMemory.

    A message whose words are held out of recall waits for the person even when it would add nothing else, so that
    they can let agents recall it. A decision the person made stands on every later run: approved applies, rejected
    adds nothing (DROP).
    """
    source = message_source(message)
    adds = extraction.entities or extraction.facts or extraction.preferences
    if source in TRUSTED or not (adds or message["held_reasons"]):
        return APPLY
    decided = HeldMemory.objects.filter(subject=subject, message_uid=message["uid"]).values_list(
        "status", flat=True).first()
    if decided == HeldStatus.APPROVED:
        return APPLY
    if decided == HeldStatus.REJECTED:
        return DROP
    grant = Grant.objects.filter(subject=subject, agent=agent).select_related("agent").first() if agent else None
    policy = grant.effective_untrusted_writes if grant else APPLY
    if policy == DROP and decided is None:
        return DROP
    strict = _reasons(user_id=subject.user_id, message=message, extraction=extraction)
    reasons = [REVIEWED, *strict] if policy == HOLD else strict
    if not reasons and decided is None:
        return APPLY
    _held_write(subject=subject, agent=agent, message=message, source=source, extraction=extraction,
                reasons=reasons or [REVIEWED])
    if strict and not message["held_reasons"] and ROLE_SOURCES[message["role"]] not in TRUSTED:
        # What the strict rule holds of a message is held in every section: its words are not recalled either.
        graphdb.run(cypher.MESSAGE_HELD_SET, {"uid": message["uid"], "user_id": subject.user_id, "reasons": strict})
    return HOLD


def _reasons(*, user_id: str, message: dict, extraction: Extraction) -> list[str]:
    """Return why the strict rule holds this memory, in plain words; empty when it may apply."""
    reasons = list(message["held_reasons"] or [])
    # On the person's own turn, a value the turn itself says is their words relayed, not the agent's.
    said = message["content"].casefold() if message["role"] == "user" else ""
    facts = [f for f in extraction.facts if not (said and f.object.casefold() in said)]
    person = PersonWords(user_id=user_id, before=message["created_at"])
    for fact in facts:
        reasons += fact_reasons(subject=fact.subject, predicate=fact.predicate, object=fact.object, person=person)
    for preference in extraction.preferences:
        reasons += preference_reasons(category=preference.category, preference=preference.preference, person=person)
    single = [{"subject_key": f.subject.lower(), "predicate": f.predicate, "object_key": f.object.lower()}
              for f in facts if f.cardinality == "single"]
    if single and graphdb.scalar(cypher.FACTS_PERSON_STATED, {
            "user_id": user_id, "facts": single, "corrected_by_agent": CORRECTED_BY_AGENT, "accepted_by": ACCEPTED_BY}):
        reasons.append(REPLACES_YOURS)
    return list(dict.fromkeys(reasons))


def _held_write(*, subject: Subject, agent: Agent | None, message: dict, source: str, extraction: Extraction,
                reasons: list[str]) -> None:
    """Write (or refresh) what the message would add, held for the person; a held row keeps its status."""
    adds = ([fact_sentence(subject=f.subject, predicate=f.predicate, object=f.object) for f in extraction.facts]
            + [p.preference for p in extraction.preferences]
            + [e.name for e in extraction.entities])
    HeldMemory.objects.update_or_create(
        subject=subject, message_uid=message["uid"],
        defaults={"agent": agent, "session_id": message["session_id"], "source": source,
                  "tool_name": message["tool_name"] or "", "source_url": message["source_url"] or "",
                  "said": message["content"], "reasons": reasons, "adds": list(dict.fromkeys(adds))})
