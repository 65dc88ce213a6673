"""A document the offline extractor reads: the message after its earlier turns, and what it states."""

import re
from datetime import date

from memory.extraction.dates import stated_date
from memory.extraction.offline.names import CUE_CONFIDENCE, NO_CUE, NameReader, person_by_name
from memory.extraction.offline.preferences import stated_preferences
from memory.extraction.offline.references import Entity, ReferenceReader, Slot
from memory.extraction.offline.relations import ATTRIBUTE_CONFIDENCE, UNASSERTED, RelationReader
from memory.extraction.offline.reports import REPORT_CONFIDENCE, ReportReader
from memory.extraction.offline.tokens import TOKEN, Token, clauses, sentences
from memory.extraction.results import (UNTYPED, ExtractedEntity, ExtractedFact, ExtractedMention, ExtractedRelation,
                                       Extraction)
from memory.extraction.rules import predicate_cardinality

# A turn where someone speaks of themself or to the listener ("my car", "a road trip we took", "your phone"): its
# unnamed things are nothing in particular to remember; they stay the objects of facts, never entities.
PERSONAL = re.compile(r"\b(?:I|[Mm]e|[Mm]y|[Mm]ine|[Ww]e|[Uu]s|[Oo]ur|[Oo]urs|[Yy]ou|[Yy]our|[Yy]ours|[Ll]et['’]s)\b")
# Just before an unnamed event: "a road trip", "a new class" is some event of a kind, not a particular one.
INDEFINITE = re.compile(r"\b(?:a|an)\s+\Z", re.IGNORECASE)
# Facts are stored in one direction per meaning: "Y owns X" is the fact that X is owned by Y.
FACT_FORMS = {"OWNS": "OWNED_BY"}
SYMMETRIC = {"KNOWS", "PARTNER_WITH"}
# Taking part in, belonging to or working for a thing needs to say which: "joined a team", "went to a museum" says
# too little to remember as a fact ("joined an LGBTQ activist group", "plays clarinet" say enough).
GROUP_PREDICATES = {"MEMBER_OF", "PARTICIPATED_IN", "VOLUNTEERS_AT", "EMPLOYED_BY", "VISITED"}


class Document(NameReader, ReferenceReader, RelationReader, ReportReader):
    """A message after its earlier turns: its sentences, the entities it names and what it states of them."""

    def __init__(self, text: str, *, reference_date: date | None, participants: set[str] = frozenset()):
        self.text = text
        self.reference_date = reference_date
        self.participants = {name.lower() for speaker in participants for name in speaker.split()[:1]}
        self.sentences = sentences([
            Token(m.group(), m.start(), m.end(), m.lastgroup) for m in TOKEN.finditer(text)
        ], text)
        self.entities: list[Entity] = []
        self.slots: list[Slot] = []
        self.relations: list[tuple[Entity, str, Entity, float, int]] = []
        self.speaker_facts: list[tuple[str, Entity, float, int]] = []
        self.attributes: list[tuple[Entity, str, str, int]] = []
        self.tentative: set[int] = set()
        self.unnamed: set[int] = set()
        self.speaker_attributes: list[tuple[str, str, int]] = []

    def read(self) -> None:
        names = self._capitalised_names()
        for sentence in self.sentences:
            found_names = names.get(id(sentence), [])
            phrases = self._noun_phrases(sentence, found_names)
            for found in sorted(found_names + phrases, key=lambda n: n.start):
                entity = self._register(*found)
                # "a LGBTQ support group", "a Harry Potter party": some event of a kind, named or not
                if (found in phrases and PERSONAL.search(self._turn_text(found.start))) or (
                        found.type == "EVENT" and INDEFINITE.search(self.text, 0, found.start)):
                    self.unnamed.add(id(entity))
        self._resolve_initialisms()
        for sentence in self.sentences:
            sentence_slots = self._slots(sentence, names.get(id(sentence), []))
            self.slots.extend(sentence_slots)
            question = sentence[-1].text == "?"
            for clause in clauses(sentence):
                clause_slots = [s for s in sentence_slots if clause[0].start <= s.start < clause[-1].end]
                asserted = not question and not UNASSERTED.search(self.text[clause[0].start:clause[-1].end])
                self._relate(clause_slots, clause, asserted)
                if asserted:
                    self._attributes(clause_slots, clause)


    def result(self, *, offset: int, extractor: str, by_person: bool) -> Extraction:
        """Return what the text after `offset` states; the speaker's "I" is the person only when `by_person`."""
        relations, facts, seen = [], [], set()
        for source, relation, target, confidence, position in self.relations:
            if position < offset or (source.name, relation, target.name) in seen:
                continue
            seen.add((source.name, relation, target.name))
            if relation in SYMMETRIC:
                seen.add((target.name, relation, source.name))
            when = self._date_near(position, target.name)
            if not {id(source), id(target)} & self.unnamed:
                relations.append(ExtractedRelation(source.name, relation, target.name, confidence, when,
                                                   self._sentence_text(position)))
            if id(source) not in self.unnamed:
                facts.append(_fact(source.name, relation, target.name, confidence, when))
        joined = {value.lower() for predicate, value, _ in self.speaker_attributes if predicate == "MEMBER_OF"}
        for relation, target, confidence, position in self.speaker_facts:
            if relation == "PARTICIPATED_IN" and target.name.lower() in joined:
                continue  # "I joined a writers group": a member of it, not at an event
            if by_person and position >= offset and ("user", relation, target.name) not in seen:
                seen.add(("user", relation, target.name))
                facts.append(_fact("user", relation, target.name, confidence, self._date_near(position, target.name)))
        for predicate, value, position in self.speaker_attributes:
            if by_person and position >= offset and ("user", predicate, value) not in seen:
                seen.add(("user", predicate, value))
                facts.append(_fact("user", predicate, value, ATTRIBUTE_CONFIDENCE, self._date_near(position, value)))
        for subject, predicate, value, position in self.attributes:
            if id(subject) in self.unnamed:
                continue  # "an elderly veteran named Samuel": Samuel is the entity, "veteran" no subject of a fact
            if position >= offset and (subject.name, predicate, value) not in seen:
                seen.add((subject.name, predicate, value))
                facts.append(_fact(subject.name, predicate, value, ATTRIBUTE_CONFIDENCE, self._date_near(position, value)))
        involved = {r.source for r in relations} | {r.target for r in relations}
        involved |= {f.subject for f in facts} | {f.object for f in facts}
        facts += self._reported_facts(facts, offset)
        return Extraction(
            entities=self._named_entities(offset, involved), relations=relations,
            facts=[f for f in facts if not _says_too_little(f)],
            preferences=stated_preferences(self.text[offset:], before=self._turn_text(offset - 3) if offset else "")
            if by_person else [], extractor=extractor,
        )

    def _named_entities(self, offset: int, involved: set[str]) -> list[ExtractedEntity]:
        """Return the entities the text after `offset` mentions, or that a relation or fact of it involves."""
        entities = []
        for entity in self.entities:
            if id(entity) in self.unnamed:
                continue
            mentions = [ExtractedMention(m.text, m.start - offset, m.end - offset, m.confidence)
                        for m in sorted(entity.mentions, key=lambda m: m.start) if m.start >= offset]
            if entity.name not in involved and all(m.start in self.tentative for m in entity.mentions):
                continue
            if mentions or entity.name in involved:
                entities.append(ExtractedEntity(
                    name=entity.name, type=_known_type(entity, related=entity.name in involved),
                    aliases=[a for a in entity.aliases if a != entity.name], mentions=mentions,
                    confidence=CUE_CONFIDENCE[entity.cue],
                ))
        return entities

    def _reported_facts(self, facts: list[ExtractedFact], offset: int) -> list[ExtractedFact]:
        """Return what the text after `offset` reports that the relation rules did not read (the same subject with
        the same relation or object is one fact); a report names no entity of its own."""
        reported = []
        for subject, predicate, value, when, weak in self._reports(offset):
            fact = _fact(subject, predicate, value, REPORT_CONFIDENCE, when)
            said = _shares_an_end if weak else _same_statement
            if not any(said(fact, other) for other in facts + reported):
                reported.append(fact)
        return reported

    def place_answer(self, offset: int) -> None:
        """Record a short answer that opens with a place, to the question where the person is, as where they are."""
        place = next((e for e in self.entities if e.type == "LOCATION" and any(m.start == offset for m in e.mentions)), None)
        if place is not None:
            self.speaker_facts.append(("LOCATED_AT", place, ATTRIBUTE_CONFIDENCE, offset))

    def _turn_text(self, position: int) -> str:
        """Return the turn (the paragraph) holding `position`."""
        start = self.text.rfind("\n\n", 0, position)
        end = self.text.find("\n\n", position)
        return self.text[start + 2 if start >= 0 else 0:end if end >= 0 else len(self.text)]

    def _sentence_bounds(self, position: int) -> tuple[int, int]:
        for sentence in self.sentences:
            if sentence[0].start <= position <= sentence[-1].end:
                return sentence[0].start, sentence[-1].end
        return position, position

    def _sentence_text(self, position: int) -> str:
        start, end = self._sentence_bounds(position)
        return self.text[start:end]

    def _date_near(self, position: int, value: str) -> date | None:
        """Return the day the sentence at `position` says a statement holds from: a date inside its value is what the
        value says ("the booster is due in June"), not when it began."""
        return stated_date(self._sentence_text(position).replace(value, " "), reference_date=self.reference_date)


def _known_type(entity: Entity, *, related: bool) -> str:
    """Return an entity's type, or UNTYPED for a name that was someone's only because nothing typed it otherwise
    (no cue in its words or sentence, no published list, no first name, no relation read with it as someone)."""
    if entity.cue == NO_CUE and entity.type == "PERSON" and not related and not person_by_name(entity.name):
        return UNTYPED
    return entity.type


def _says_too_little(fact: ExtractedFact) -> bool:
    """Return whether a fact's object is one common noun that says no more than its predicate ("user MEMBER_OF team"),
    or it names something unnamed ("an elderly veteran named Samuel": Samuel is the entity, "veteran" no subject)."""
    vague = fact.predicate in GROUP_PREDICATES and fact.object.islower() and len(fact.object.split()) == 1
    return vague or (fact.predicate == "HAS_NAME" and fact.subject != "user" and fact.subject.islower())


def _fact(subject: str, predicate: str, obj: str, confidence: float, when: date | None) -> ExtractedFact:
    if predicate in FACT_FORMS:
        subject, predicate, obj = obj, FACT_FORMS[predicate], subject
    return ExtractedFact(subject, predicate, obj, predicate_cardinality(predicate), confidence, when)


def _shares_an_end(fact: ExtractedFact, other: ExtractedFact) -> bool:
    """Return whether one end of a fact holds one of another's, as words ("search indexing task to Agent_Reviewer"
    holds "search indexing task")."""
    def holds(a: str, b: str) -> bool:
        return re.search(rf"(?<!\w){re.escape(b.lower())}(?!\w)", a.lower()) is not None
    ends, others = (fact.subject, fact.object), (other.subject, other.object)
    return any(holds(a, b) or holds(b, a) for a in ends for b in others)


def _same_statement(fact: ExtractedFact, other: ExtractedFact) -> bool:
    """Return whether two facts say one thing: of one subject (or one name of it: "ReportBuilder" of "ReportBuilder
    module"), the same relation or the same object."""
    def same(a: str, b: str) -> bool:
        a, b = a.lower(), b.lower()
        return a == b or a.startswith(b + " ") or b.startswith(a + " ")
    return same(fact.subject, other.subject) and (fact.predicate == other.predicate or same(fact.object, other.object))
