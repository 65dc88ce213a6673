"""The chat gold set (data/chat_gold/): hand-labelled turns of real conversations, and how an extraction scores on it.

Taskmaster turns carry their text. LoCoMo turns carry labels and a digest of their text only (its licence
is not stated), so their text is read from a local copy of LoCoMo and checked against the digest.

An entity matches a gold one when they share a surface form (case, surrounding quotes and punctuation, a
leading article and a trailing "'s" aside); typed matching also needs its type among the gold's types.
Matching is one to one within a turn. A prediction that only names something in the turn's `ignore` list
(debatable names, such as "LGBTQ") counts neither way. A fact matches on subject, predicate and object
forms; only facts about the person (subject "user") are scored, others are counted apart. A preference
matches on polarity and topic, where one topic may contain the other as whole words.
"""

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

from memory.extraction.rules import INTERNAL_REFERENCE
from memory.extraction.results import UNTYPED, ExtractedEntity, ExtractedFact, ExtractedPreference, Extraction

TASKMASTER_FILE = "taskmaster.json"
LOCOMO_FILE = "locomo_dev.json"
# Turns of the conversations the extractor was not developed on (issue 20): scored alone, never tuned on.
HELDOUT_FILE = "locomo_heldout.json"
# Samples of conversations 42-50 labelled for entities only (issue 20), held out once and read since: development now,
# each scored as its own source.
ENTITIES_FILES = {"entities": "locomo_entities.json", "entities_fresh": "locomo_entities_fresh.json"}
# The fourth sample of conversations 42-50 labelled for entities only, held out (issue 20).
FRESH_ENTITIES_FILE = "locomo_entities_fresh2.json"
# Five people's chats with an AI companion (issue 40), text included: held out, scored once at the end of a round.
MEMORYBANK_FILE = "memorybank.json"
# Words that make a preference's topic lean on its turn, so that it does not read alone: anywhere ("this nearby trail",
# "the freedom and connection it brings", "being there"), or opening it ("their work", "that game"); "veterans and their
# rights" reads alone.
REFERRING = re.compile(r"\b(?:this|these|those|it|them|they|he|she|him|here|there)\b|^(?:that|their|its|his|her)\b")
# A topic this short ("it", "tea") must match whole, never inside another topic.
MIN_CONTAINED = 4
PERSON = "user"


class GoldError(ValueError):
    """The gold files, or the LoCoMo copy they are read against, are missing or do not agree."""


@dataclass(frozen=True)
class GoldTurn:
    id: str
    source: str
    role: str
    context: tuple[str, ...]
    text: str
    reference_date: date | None
    entities: tuple[dict, ...] = ()
    facts: tuple[dict, ...] = ()
    preferences: tuple[dict, ...] = ()
    ignore: tuple[str, ...] = ()
    speaker: str | None = None
    conversation: str | None = None


def surface(text: str) -> str:
    """Return the form names are compared in: "The  Woodlands." -> "woodlands", "Ed Sheeran's" -> "ed sheeran"."""
    text = re.sub(r"\s+", " ", text).strip(" .,;:!?'\"“”‘’()[]").casefold()
    text = re.sub(r"['’]s$", "", text)
    return re.sub(r"^(?:the|a|an) ", "", text)


def _forms(*names: str | Iterable[str]) -> set[str]:
    flat = [n for name in names for n in ([name] if isinstance(name, str) else name)]
    return {surface(n) for n in flat if surface(n)}


def gold_load(*, directory: Path, locomo: Path | None = None, heldout: bool = False, entities: bool = False,
              fresh: bool = False, memorybank: bool = False, first_speaker: str = "user") -> list[GoldTurn]:
    """Return the gold turns: Taskmaster's always, LoCoMo's development turns when a local copy of LoCoMo is given;
    with `heldout`, the held-out LoCoMo turns alone; with `entities`, the development samples labelled for entities
    alone; with `fresh`, the held-out sample labelled for entities alone; with `memorybank`, the held-out MemoryBank
    turns alone.

    A LoCoMo turn's role comes from its speaker: the conversation's first speaker is `first_speaker`, the other
    the other role. The facts and preferences labelled on a turn are what its speaker says about themself, so they
    are expected only when that speaker is the person (role "user").
    """
    if memorybank:
        return memorybank_turns(directory / MEMORYBANK_FILE)
    if heldout or entities or fresh:
        if locomo is None:
            raise GoldError("The held-out turns are LoCoMo's: give a local copy of LoCoMo too")
        files = ({"fresh": FRESH_ENTITIES_FILE} if fresh else ENTITIES_FILES if entities
                 else {"heldout": HELDOUT_FILE})
        return [turn for source, name in files.items()
                for turn in _locomo_turns(directory / name, locomo=locomo, source=source, first_speaker=first_speaker)]
    path = directory / TASKMASTER_FILE
    if not path.is_file():
        raise GoldError(f"No gold file {path}")
    turns = [_turn(raw, source="taskmaster", role=raw["role"], text=raw["text"], reference_date=None)
             for raw in json.loads(path.read_text())["turns"]]
    if locomo is not None:
        turns += _locomo_turns(directory / LOCOMO_FILE, locomo=locomo, source="locomo", first_speaker=first_speaker)
    return turns


def _locomo_turns(path: Path, *, locomo: Path, source: str, first_speaker: str) -> list[GoldTurn]:
    if not path.is_file():
        raise GoldError(f"No gold file {path}")
    labels = json.loads(path.read_text())
    texts, first_speakers = locomo_texts(directory=locomo, samples=labels["samples"])
    other = {"user": "assistant", "assistant": "user"}[first_speaker]
    turns = []
    for raw in labels["turns"]:
        key = (raw["sample_id"], raw["dia_id"])
        if key not in texts:
            raise GoldError(f"{raw['id']}: no such dialog id in the LoCoMo copy at {locomo}")
        speaker, text, when = texts[key]
        if speaker != raw["speaker"] or hashlib.sha256(text.encode()).hexdigest() != raw["text_sha256"]:
            raise GoldError(f"{raw['id']}: the LoCoMo copy at {locomo} differs from the one labelled")
        role = first_speaker if speaker == first_speakers[raw["sample_id"]] else other
        turns.append(_turn(raw, source=source, role=role, text=text, reference_date=when))
    return turns


def memorybank_turns(path: Path) -> list[GoldTurn]:
    """Return the MemoryBank turns, each with its person as `conversation` and its session's day."""
    if not path.is_file():
        raise GoldError(f"No gold file {path}")
    return [_turn(raw, source="memorybank", role=raw["role"], text=raw["text"],
                  reference_date=date.fromisoformat(raw["date"]), conversation=raw["person"])
            for raw in json.loads(path.read_text())["turns"]]


def _turn(raw: dict, *, source: str, role: str, text: str, reference_date: date | None,
          conversation: str | None = None) -> GoldTurn:
    said_by_person = role == "user"
    return GoldTurn(
        id=raw["id"], source=source, role=role, context=tuple(raw["context"]), text=text,
        reference_date=reference_date, entities=tuple(raw["entities"]),
        facts=tuple(raw["facts"]) if said_by_person else (),
        preferences=tuple(raw["preferences"]) if said_by_person else (), ignore=tuple(raw.get("ignore", ())),
        speaker=raw.get("speaker"), conversation=conversation,
    )


def locomo_texts(*, directory: Path, samples: Sequence[str]) -> tuple[dict[tuple[str, str], tuple[str, str, date]],
                                                                      dict[str, str]]:
    """Return (speaker, text, session day) by (sample id, dialog id), and each sample's first speaker, from
    locomo10.json or the zip's <n>.json files."""
    if not directory.is_dir():
        raise GoldError(f"--locomo: no directory {directory}")
    conversations = {}
    for path in directory.rglob("locomo10.json"):
        conversations |= {s["sample_id"]: s["conversation"] for s in json.loads(path.read_text())}
    for sample in samples:
        if sample not in conversations:
            name = f"{sample.removeprefix('conv-')}.json"
            found = sorted(directory.rglob(name))
            if not found:
                raise GoldError(f"--locomo: no {sample} (in locomo10.json or {name}) under {directory}")
            conversations[sample] = json.loads(found[0].read_text())
    texts = {}
    for sample in samples:
        conversation = conversations[sample]
        for key, turns in conversation.items():
            if not re.fullmatch(r"session_\d+", key) or not turns:
                continue
            day = datetime.strptime(conversation[f"{key}_date_time"].strip(), "%I:%M %p on %d %B, %Y").date()
            texts |= {(sample, t["dia_id"]): (t["speaker"], t["text"], day) for t in turns}
    return texts, {sample: conversations[sample]["speaker_a"] for sample in samples}


@dataclass
class Tally:
    matched: int = 0
    predicted: int = 0
    gold: int = 0

    def add(self, other: "Tally") -> None:
        self.matched += other.matched
        self.predicted += other.predicted
        self.gold += other.gold

    def summary(self) -> dict:
        p = self.matched / self.predicted if self.predicted else 0.0
        r = self.matched / self.gold if self.gold else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f1, 4),
                "matched": self.matched, "predicted": self.predicted, "gold": self.gold}


@dataclass
class TurnScore:
    entities_typed: Tally
    entities: Tally
    facts: Tally
    preferences: Tally
    entities_typed_names: Tally = field(default_factory=Tally)
    entities_untyped: int = 0
    preferences_referring: int = 0
    categories_agreeing: int = 0
    other_facts: int = 0
    false_entities: list[ExtractedEntity] = field(default_factory=list)
    false_facts: list[ExtractedFact] = field(default_factory=list)
    false_preferences: list[ExtractedPreference] = field(default_factory=list)


def entities_match(*, predicted: Sequence[ExtractedEntity], gold: Sequence[dict], typed: bool) -> list[int]:
    """Return the indices of the predictions matched one to one to gold entities (greedy, in gold order)."""
    def matches(entity: ExtractedEntity, expected: dict) -> bool:
        types = {expected["type"], *expected.get("also", ())}
        forms = _forms(expected["name"], expected.get("aliases", ()))
        return (not typed or entity.type in types) and bool(forms & _forms(entity.surface_forms))

    return [i for i, _ in _one_to_one(predicted, gold, matches)]


def _fact_matches(fact: ExtractedFact, expected: dict) -> bool:
    return (fact.predicate in (expected["predicate"], *expected.get("predicate_also", ()))
            and surface(fact.subject) in _forms(expected["subject"], expected.get("subject_aliases", ()))
            and surface(fact.object) in _forms(expected["object"], expected.get("object_aliases", ())))


def _topics_match(topic: str, forms: set[str]) -> bool:
    topic = surface(topic)
    if topic in forms:
        return True

    def inside(short: str, long: str) -> bool:
        return len(short) >= MIN_CONTAINED and re.search(rf"(?<!\w){re.escape(short)}(?!\w)", long) is not None
    return any(inside(form, topic) or inside(topic, form) for form in forms)


def _preference_matches(preference: ExtractedPreference, expected: dict) -> bool:
    forms = _forms(expected["topic"], expected.get("topic_aliases", ()))
    return preference.polarity == expected["polarity"] and _topics_match(preference.topic, forms)


def preference_refers(preference: ExtractedPreference) -> bool:
    """Return whether a preference's topic leans on its turn ("this nearby trail"), so it does not read alone."""
    return REFERRING.search(INTERNAL_REFERENCE.sub("and", preference.topic.casefold())) is not None


def _one_to_one(predicted: Sequence, gold: Sequence[dict], matches) -> list[tuple[int, int]]:
    pairs, used = [], set()
    for g, expected in enumerate(gold):
        hit = next((i for i, item in enumerate(predicted) if i not in used and matches(item, expected)), None)
        if hit is not None:
            used.add(hit)
            pairs.append((hit, g))
    return pairs


def turn_score(*, turn: GoldTurn, extraction: Extraction) -> TurnScore:
    """Score one extraction against its turn's labels."""
    ignored = _forms(turn.ignore)
    untyped = entities_match(predicted=extraction.entities, gold=turn.entities, typed=False)
    typed = entities_match(predicted=extraction.entities, gold=turn.entities, typed=True)
    false_indices = [i for i, e in enumerate(extraction.entities)
                     if i not in untyped and not _forms(e.surface_forms) & ignored]
    false_entities = [extraction.entities[i] for i in false_indices]
    counted = len(untyped) + len(false_indices)
    untyped_names = sum(1 for i in [*untyped, *false_indices] if extraction.entities[i].type == UNTYPED)
    person_facts = [f for f in extraction.facts if surface(f.subject) == PERSON]
    facts = _one_to_one(person_facts, turn.facts, _fact_matches)
    preferences = _one_to_one(extraction.preferences, turn.preferences, _preference_matches)
    fact_hits, preference_hits = {i for i, _ in facts}, {i for i, _ in preferences}
    return TurnScore(
        entities_typed=Tally(len(typed), counted, len(turn.entities)),
        entities=Tally(len(untyped), counted, len(turn.entities)),
        entities_typed_names=Tally(len(typed), counted - untyped_names, len(turn.entities)),
        entities_untyped=untyped_names,
        preferences_referring=sum(1 for p in extraction.preferences if preference_refers(p)),
        facts=Tally(len(facts), len(person_facts), len(turn.facts)),
        preferences=Tally(len(preferences), len(extraction.preferences), len(turn.preferences)),
        categories_agreeing=sum(1 for i, g in preferences
                                if extraction.preferences[i].category == turn.preferences[g]["category"]),
        false_entities=false_entities,
        other_facts=len(extraction.facts) - len(person_facts),
        false_facts=[f for i, f in enumerate(person_facts) if i not in fact_hits],
        false_preferences=[p for i, p in enumerate(extraction.preferences) if i not in preference_hits],
    )


def _section(scores: Sequence[tuple[GoldTurn, TurnScore]]) -> dict:
    totals = {key: Tally() for key in ("entities_typed", "entities", "entities_typed_names", "facts", "preferences")}
    for _, score in scores:
        for key, tally in totals.items():
            tally.add(getattr(score, key))
    matched, agreeing = totals["preferences"].matched, sum(s.categories_agreeing for _, s in scores)
    names, preferences = totals["entities"].predicted, totals["preferences"].predicted
    return {
        "turns": len(scores),
        **{key: tally.summary() for key, tally in totals.items()},
        "entities_untyped_share": round(sum(s.entities_untyped for _, s in scores) / names, 4) if names else 0.0,
        "preferences_self_contained": round(1 - sum(s.preferences_referring for _, s in scores) / preferences, 4)
        if preferences else None,
        "preference_category_agreement": round(agreeing / matched, 4) if matched else None,
        "person_facts_from_assistant_turns": sum(s.facts.predicted for t, s in scores if t.role != "user"),
        "preferences_from_assistant_turns": sum(s.preferences.predicted for t, s in scores if t.role != "user"),
        "facts_about_others": sum(s.other_facts for _, s in scores),
    }


def gold_score(*, scored: Sequence[tuple[GoldTurn, Extraction]], false_positives: int = 15) -> dict:
    """Return precision and recall overall and per source, and the commonest false positives with a turn showing each."""
    scores = [(turn, turn_score(turn=turn, extraction=extraction)) for turn, extraction in scored]
    sources = sorted({turn.source for turn, _ in scores})
    kinds = {
        "entities": lambda s: (f"{e.name} ({e.type})" for e in s.false_entities),
        "facts": lambda s: (f"{f.subject} {f.predicate} {f.object}" for f in s.false_facts),
        "preferences": lambda s: (f"{p.polarity} {p.topic}" for p in s.false_preferences),
    }
    listed = {}
    for kind, names in kinds.items():
        counts, first = Counter(), {}
        for turn, score in scores:
            for name in names(score):
                counts[name] += 1
                first.setdefault(name, turn.id)
        listed[kind] = [[name, n, first[name]] for name, n in counts.most_common(false_positives)]
    return {
        "overall": _section(scores),
        "by_source": {source: _section([pair for pair in scores if pair[0].source == source]) for source in sources},
        "false_positives": listed,
    }
