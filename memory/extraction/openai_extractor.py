"""The OpenAI extractor: one chat completion constrained by a JSON schema (structured outputs)."""

import json
import re
from collections.abc import Sequence
from datetime import date

from django.conf import settings

from memory.extraction.english import NEGATION as NEGATION_PATTERN
from memory.extraction.results import (
    ENTITY_TYPES,
    POLARITIES,
    ExtractedEntity,
    ExtractedFact,
    ExtractedMention,
    ExtractedPreference,
    ExtractedRelation,
    Extraction,
    Turn,
)
from memory.extraction.rules import predicate_cardinality, preference_topic
from memory.extraction.speakers import labels_strip

NEGATION = re.compile(NEGATION_PATTERN)
# How a model may name the person a fact is about; all of them are stored as "user".
PERSON_SUBJECTS = {"user", "the user", "i", "me", "myself", "speaker", "the speaker", "the person"}
RELATION_TYPES = (
    "EMPLOYED_BY", "MEMBER_OF", "SUBSIDIARY_OF", "HEADQUARTERS_AT", "LOCATED_AT", "RESIDES_AT", "USES", "OWNS",
    "PARTNER_WITH", "OCCURRED_AT", "PARTICIPATED_IN", "INVOLVED", "KNOWS", "ALIAS_OF", "RELATED_TO",
)


def _array(properties: dict) -> dict:
    return {
        "type": "array",
        "items": {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False},
    }


SCHEMA = {
    "type": "object",
    "properties": {
        "entities": _array({
            "name": {"type": "string"},
            "type": {"type": "string", "enum": list(ENTITY_TYPES)},
            "aliases": {"type": "array", "items": {"type": "string"}},
            "mentions": {"type": "array", "items": {"type": "string"}},
        }),
        "relations": _array({
            "source": {"type": "string"},
            "type": {"type": "string", "enum": list(RELATION_TYPES)},
            "target": {"type": "string"},
            "confidence": {"type": "number"},
        }),
        "facts": _array({
            "subject": {"type": "string"},
            "predicate": {"type": "string"},
            "object": {"type": "string"},
            "valid_from": {"type": ["string", "null"]},
        }),
        "preferences": _array({
            "category": {"type": "string"},
            "preference": {"type": "string"},
            "topic": {"type": "string"},
            "polarity": {"type": "string", "enum": list(POLARITIES)},
        }),
    },
    "required": ["entities", "relations", "facts", "preferences"],
    "additionalProperties": False,
}

INSTRUCTIONS = """You extract long-term memory about one person (the user) from one chat message.
The message says who sent it: the user, the assistant, the system or a tool.
Entities: POLE+O types only (PERSON, ORGANIZATION, LOCATION, EVENT, OBJECT); name each once, list other
surface forms as aliases and every literal substring of the message that refers to it as mentions.
Greetings, interjections, pronouns and words capitalised only because they open a sentence are not
entities, and neither is a person only spoken to: "Wow Sam, thanks!" names nobody, "Sam said hi" names Sam.
Relations: typed, between extracted entity names; use RELATED_TO only when no other type fits.
Being a fan of something is not working for it.
Facts: subject-predicate-object statements the message asserts, predicate in UPPER_SNAKE_CASE; valid_from
as an ISO date only when the message states when it began (resolve relative dates against the reference
date), else null.
When the user states something about themselves, the subject is "user". When anyone else speaks, their
"I" is themselves, never the user: an assistant's "I live in Porto" states nothing about the user.
Preferences: only the user's own likes, dislikes and standing instructions, said by the user, with a short
category (food, travel, communication, style, schedule, technology, entertainment, general; instruction for a
rule the user sets on how the assistant serves them from now on, kept in the user's words), the topic
(what it is about, a short lower-case phrase such as "curry for lunch") and its polarity.
Never output a relation or fact that the message negates ("did not join" yields nothing).
Earlier turns only help resolve references; extract only what the message itself states.
A sender's name, when given, says who speaks: it is no entity and no part of what the message says."""


class OpenAIExtractor:
    """Extract with an OpenAI chat model (or any server that speaks its API, via OPENAI_BASE_URL)."""

    name = "openai"

    def __init__(self):
        from openai import OpenAI

        self.client = OpenAI(api_key=settings.OPENAI_API_KEY, base_url=settings.OPENAI_BASE_URL or None)
        self.model = settings.OPENAI_EXTRACTION_MODEL

    def extract(
        self, *, text: str, role: str = "user", context: Sequence[Turn] = (), reference_date: date | None = None,
    ) -> Extraction:
        said, earlier = labels_strip(text, [turn.content for turn in context])
        prompt = f"Reference date: {reference_date.isoformat() if reference_date else 'unknown'}\n"
        if context:
            turns = "\n".join(f"[{_sender(turn.role, e.speaker)}] {e.text}" for turn, e in zip(context, earlier))
            prompt += f"Earlier turns, oldest first:\n{turns}\n\n"
        prompt += f"Sent by: {_sender(role, said.speaker)}\nMessage:\n{said.text}"
        response = self.client.chat.completions.create(
            model=self.model,
            temperature=0,
            messages=[{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": prompt}],
            response_format={"type": "json_schema", "json_schema": {"name": "memory_extraction", "strict": True, "schema": SCHEMA}},
        )
        extraction = self._parse(json.loads(response.choices[0].message.content), text=said.text, role=role)
        shift = said.label_length
        for entity in extraction.entities:
            entity.mentions = [ExtractedMention(m.text, m.start + shift, m.end + shift, m.confidence) for m in entity.mentions]
        return extraction

    def _parse(self, payload: dict, *, text: str, role: str = "user") -> Extraction:
        """Build the extraction from the model's answer; what it says of the user counts only when the user spoke."""
        by_person = role == "user"
        entities = {}
        for item in payload["entities"]:
            name = item["name"].strip()
            if not name or item["type"] not in ENTITY_TYPES or name.lower() in entities:
                continue
            aliases = [a for a in dict.fromkeys(a.strip() for a in item["aliases"]) if a and a.lower() != name.lower()]
            entities[name.lower()] = ExtractedEntity(
                name=name, type=item["type"], aliases=aliases,
                mentions=_locate([name, *aliases, *item["mentions"]], text), confidence=0.8,
            )
        relations, negated = [], set()
        for r in payload["relations"]:
            source, target = entities.get(r["source"].strip().lower()), entities.get(r["target"].strip().lower())
            if source is None or target is None:
                continue
            if _negated_between(source, target, text):
                negated.add((source.name.lower(), target.name.lower()))
                continue
            relations.append(ExtractedRelation(
                source=source.name, type=r["type"], target=target.name,
                confidence=min(max(float(r["confidence"]), 0.0), 1.0),
            ))
        facts = []
        for f in payload["facts"]:
            predicate = re.sub(r"\W+", "_", f["predicate"].strip()).strip("_").upper()
            subject = "user" if f["subject"].strip().lower() in PERSON_SUBJECTS else f["subject"].strip()
            if (subject.lower(), f["object"].strip().lower()) in negated or (subject == "user" and not by_person):
                continue
            if subject and predicate and f["object"].strip():
                facts.append(ExtractedFact(
                    subject=subject, predicate=predicate, object=f["object"].strip(),
                    cardinality=predicate_cardinality(predicate), confidence=0.8, valid_from=_iso_date(f["valid_from"]),
                ))
        preferences = [
            ExtractedPreference(
                category=(p["category"].strip().lower() or "general"), preference=p["preference"].strip(), confidence=0.8,
                topic=preference_topic(p["topic"] or p["preference"]),
                polarity=p["polarity"] if p["polarity"] in POLARITIES else "positive",
            )
            for p in payload["preferences"]
            if by_person and p["preference"].strip()
        ]
        return Extraction(entities=list(entities.values()), relations=relations, facts=facts, preferences=preferences, extractor=self.name)


def _sender(role: str, speaker: str | None) -> str:
    """Return who sent a turn: its role, and the name it was labelled with ("user (Caroline)")."""
    return f"{role} ({speaker})" if speaker else role


def _locate(forms: list[str], text: str) -> list[ExtractedMention]:
    """Return every occurrence of the given surface forms in `text`; the model's own offsets are not trusted."""
    found = {}
    lowered = text.lower()
    for form in sorted({f.strip() for f in forms if f.strip()}, key=len, reverse=True):
        start = lowered.find(form.lower())
        while start != -1:
            end = start + len(form)
            if not any(s < end and start < e for s, e in found):
                found[(start, end)] = ExtractedMention(text=text[start:end], start=start, end=end, confidence=0.8)
            start = lowered.find(form.lower(), end)
    return [found[key] for key in sorted(found)]


def _negated_between(source: ExtractedEntity, target: ExtractedEntity, text: str) -> bool:
    """Return whether the message negates the link it draws between two mentions in one clause.

    A guard, not the main defence: the instructions already forbid negated relations.
    """
    for left in source.mentions:
        for right in target.mentions:
            first, second = sorted((left, right), key=lambda m: m.start)
            between = text[first.end:second.start]
            if first.end <= second.start and not re.search(r"[.!?;]", between) and NEGATION.search(between):
                return True
    return False


def _iso_date(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value[:10]) if value else None
    except ValueError:
        return None
