"""The keys what messages state is found by, whichever message states it first: derived uids, normal names, a
preference's topic and polarity, and the order key of a statement."""

import hashlib
import re
import uuid
from dataclasses import dataclass
from datetime import date, datetime, time, timezone

from memory.extraction.names import name_core
from memory.extraction.rules import preference_topic, preference_topic_key

TIME_KEY = "%Y-%m-%dT%H:%M:%S.%f"
NEGATIVE = re.compile(r"^(?:dis|does not |doesn't |do not |don't |never |hates? |avoids? )", re.IGNORECASE)
POLARITY_WORDS = re.compile(
    r"^(?:(?:does not|doesn't|do not|don't|never)\s+)?"
    r"(?:likes?|loves?|enjoys?|prefers?|dislikes?|hates?|avoids?|wants?|is into|favou?rs?)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Statement:
    """When a message was said: its own time, its place in the conversation, when it was stored."""

    message_uid: str
    created_at: datetime
    seq: int
    stored_at: datetime

    def key(self, valid_from: date | None = None, index: int = 0) -> str:
        """Return a string that sorts statements in the order they were said; a stated valid_from comes first.

        `index` orders the statements of one message (a later one in the same message wins).
        """
        said = _utc(self.created_at).strftime(TIME_KEY)
        stated = _utc(datetime.combine(valid_from, time(), self.created_at.tzinfo)).strftime(TIME_KEY) if valid_from \
            else said
        return f"{stated}|{said}|{self.seq:012d}|{self.message_uid}|{index:04d}"


def _utc(moment: datetime) -> datetime:
    return moment.astimezone(timezone.utc).replace(tzinfo=None)


def statement_key_restated(*, key: str, valid_from: date | None) -> str:
    """Return a statement's order key with `valid_from` as its stated time (the key unchanged without one)."""
    if valid_from is None:
        return key
    stated = _utc(datetime.combine(valid_from, time(), timezone.utc)).strftime(TIME_KEY)
    return f"{stated}|{key.split('|', 1)[1]}"


def derived_uid(*parts: str) -> str:
    """Return a stable uuid for what several messages may state, so every statement finds the same node."""
    return str(uuid.UUID(hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:32]))


def entity_key(name: str) -> str:
    """Return an entity name's normal form, the key that makes one entity per person and type."""
    return name_core(name) or name.lower()


def entity_uid(*, user_id: str, type: str, name: str) -> str:
    """Return the one uid an entity of this person, type and normal name has, whoever writes it first."""
    return derived_uid(user_id, "entity", type, entity_key(name))


def fact_uid(*, user_id: str, subject: str, predicate: str, object: str) -> str:
    """Return the one uid of a person's fact of this subject, predicate and object, whoever states it."""
    return derived_uid(user_id, "fact", subject.lower(), predicate, object.lower())


def preference_uid(*, user_id: str, topic: str, polarity: str) -> str:
    """Return the one uid of a person's preference on a topic, said in whichever words, and of one polarity."""
    return derived_uid(user_id, "preference", preference_topic_key(topic), polarity)


def preference_key(text: str) -> tuple[str, str]:
    """Return the topic and polarity a preference's text is keyed by, as extraction keys it."""
    topic, negative = preference_topic_split(text)
    return preference_topic(topic) or preference_topic(text), "negative" if negative else "positive"


def preference_topic_split(text: str) -> tuple[str, bool]:
    """Split "doesn't like cilantro" into ("cilantro", True)."""
    return POLARITY_WORDS.sub("", text.strip()).lower(), bool(NEGATIVE.match(text.strip()))
