"""Entities and references: one entity per name and its later forms, and the slots of a sentence that refer to one."""

from dataclasses import dataclass, field

from memory.extraction import english
from memory.extraction.names import initials, name_core, name_tokens, singular
from memory.extraction.offline.names import CUE_CONFIDENCE, WEAK_CUE, Name
from memory.extraction.offline.tokens import Token
from memory.extraction.results import ENTITY_TYPES, ExtractedMention
from memory.extraction.rules import SPEAKER

REFERENCE_CONFIDENCE = 0.6
POSSESSIVES = {"its", "his", "her", "their", "my"}
# The entity types a pronoun may refer to: the latest one mentioned before it of such a type.
PRONOUN_REFERENTS = {
    **dict.fromkeys(english.PERSON_PRONOUNS, frozenset({"PERSON"})),
    "its": frozenset({"ORGANIZATION"}),
    **dict.fromkeys(english.THING_PRONOUNS - {"its"}, frozenset(ENTITY_TYPES) - {"PERSON"}),
}


@dataclass
class Entity:
    name: str
    type: str | None
    cue: int
    aliases: list[str] = field(default_factory=list)
    mentions: list[ExtractedMention] = field(default_factory=list)

    @property
    def surface_forms(self) -> list[str]:
        return [self.name, *self.aliases]

    def add_alias(self, form: str) -> None:
        if form and all(form.lower() != known.lower() for known in self.surface_forms):
            self.aliases.append(form)


@dataclass
class Slot:
    """A stretch of a clause that refers to one or more entities (or to the speaker)."""

    start: int
    end: int
    entities: list[Entity]
    kind: str

    possessive: bool = False
    lead: str = ""  # read before the text that follows the slot: " " for a speaker the sentence leaves out

    def types(self) -> set[str]:
        return {SPEAKER} if self.kind == "speaker" else {e.type for e in self.entities}


class ReferenceReader:
    """Register the entities of a document and find what each sentence refers to."""

    def _register(self, start: int, end: int, surface: str, name: str, type_: str | None, cue: int,
                  aliases: list[str]) -> Entity:
        mention = ExtractedMention(text=surface, start=start, end=end, confidence=CUE_CONFIDENCE[cue])
        for entity in reversed(self.entities):
            if _same_entity(entity, name, type_, cue):
                if cue > entity.cue:
                    entity.type, entity.cue = type_, cue
                if len(name_tokens(name)) > len(name_tokens(entity.name)) and type_ is not None:
                    entity.add_alias(entity.name)
                    entity.aliases = [a for a in entity.aliases if a.lower() != name.lower()]
                    entity.name = name
                for form in (name, surface, *aliases):
                    entity.add_alias(form)
                entity.mentions.append(mention)
                return entity
        entity = Entity(name=name, type=type_, cue=cue, mentions=[mention])
        for form in (surface, *aliases):
            entity.add_alias(form)
        self.entities.append(entity)
        return entity

    def _resolve_initialisms(self) -> None:
        for short in [e for e in self.entities if e.type is None]:
            letters = short.name.replace(".", "").lower()
            full = next((e for e in self.entities if e.type and len(name_tokens(e.name)) > 1 and initials(e.name) == letters), None)
            self.entities.remove(short)
            if full is None:
                short.type, short.cue = "ORGANIZATION", WEAK_CUE
                self.entities.append(short)
            else:
                full.add_alias(short.name)
                full.mentions.extend(short.mentions)

    def _entity_at(self, start: int) -> Entity | None:
        return next((e for e in self.entities if any(m.start == start for m in e.mentions)), None)

    def _slots(self, sentence: list[Token], names: list[Name]) -> list[Slot]:
        slots = []
        taken = set()
        for start, end, *_ in names + self._noun_phrases(sentence, names):
            entity = self._entity_at(start)
            if entity is not None:
                slots.append(Slot(start, end, [entity], "name"))
                taken.update(range(start, end))
        for i, token in enumerate(sentence):
            if token.start in taken:
                continue
            word = token.lower
            if word in english.SPEAKER_PRONOUNS and token.kind == "word":
                slots.append(Slot(token.start, token.end, [], "speaker"))
            elif word in PRONOUN_REFERENTS:
                self._refer(slots, token.start, token.end, "pronoun", lambda e, w=word: e.type in PRONOUN_REFERENTS[w], 1,
                            possessive=word in POSSESSIVES)
            elif word in ("both", "two") and (word == "both" or (i > 0 and sentence[i - 1].lower == "the")):
                noun = sentence[i + 1] if i + 1 < len(sentence) and sentence[i + 1].kind == "word" else None
                wanted = english.GENERIC_NOUNS.get(noun.lower, "PERSON") if noun and noun.lower in english.GENERIC_NOUNS else "PERSON"
                end = noun.end if noun and noun.lower in english.GENERIC_NOUNS else token.end
                first = sentence[i - 1].start if word == "two" else token.start
                self._refer(slots, first, end, "plural", lambda e, t=wanted: e.type == t, 2)
            elif word in ("the", "this", "that") and i + 1 < len(sentence) and sentence[i + 1].kind == "word":
                noun = sentence[i + 1]
                if noun.capitalised or noun.start in taken or (word != "the" and singular(noun.lower) != noun.lower):
                    continue  # "this" and "that" take a singular noun: in "That sounds great" the word is a verb
                head = singular(noun.lower)
                if self._refer(slots, token.start, noun.end, "nominal",
                               lambda e, h=head: singular(name_tokens(e.name)[-1]) == h if name_tokens(e.name) else False, 1,
                               record=True):
                    continue
                if noun.lower in english.GENERIC_NOUNS:
                    wanted = english.GENERIC_NOUNS[noun.lower]
                    self._refer(slots, token.start, noun.end, "nominal", lambda e, t=wanted: e.type == t, 1, record=True)
        implied = self._implied_speaker(sentence)
        if implied is not None:
            slots.append(implied)
        return _coordinated(sorted(slots, key=lambda s: s.start), self.text)

    def _implied_speaker(self, sentence: list[Token]) -> Slot | None:
        """Return the speaker a chat sentence leaves out ("Just got back from a road trip"), or None.

        The slot is empty, just before the verb, and leads with a space, so the text between it and an
        object reads " got back from a ", as after a stated "I".
        """
        index = 0
        while index < len(sentence) and sentence[index].lower in english.VERB_ADVERBS:
            index += 1
        if index == len(sentence) or sentence[index].lower not in english.IMPLIED_SUBJECT_VERBS:
            return None
        verb = sentence[index]
        return Slot(verb.start, verb.start, [], "speaker", lead=" ")

    def _refer(self, slots, start, end, kind, accepts, count, record=False, possessive=False) -> bool:
        """Add a slot for the latest `count` entities mentioned before `start` that `accepts`."""
        latest = sorted(
            ((max(m.start for m in e.mentions if m.start < start), e) for e in self.entities
             if e.type and accepts(e) and any(m.start < start for m in e.mentions)),
            key=lambda pair: pair[0], reverse=True,
        )
        if len(latest) < count:
            return False
        chosen = [e for _, e in latest[:count]]
        slots.append(Slot(start, end, chosen, kind, possessive))
        if record:
            chosen[0].mentions.append(ExtractedMention(self.text[start:end], start, end, REFERENCE_CONFIDENCE))
        return True


def _coordinated(slots: list[Slot], text: str) -> list[Slot]:
    """Join two names of one type written "A and B" into one slot, so both take the clause's verb."""
    joined = []
    for slot in slots:
        last = joined[-1] if joined else None
        if (last is not None and last.kind == slot.kind == "name" and last.types() == slot.types()
                and text[last.end:slot.start] == " and "):
            joined[-1] = Slot(last.start, slot.end, last.entities + slot.entities, "name")
        else:
            joined.append(slot)
    return joined


def _same_entity(entity: Entity, name: str, type_: str | None, cue: int) -> bool:
    if type_ is None or entity.type is None:
        return False
    if entity.type != type_ and min(entity.cue, cue) > 0:
        return False
    core = name_core(name)
    if any(name_core(form) == core for form in entity.surface_forms):
        return True
    words, known = name_core(name).split(), name_core(entity.name).split()
    shorter, longer = sorted((words, known), key=len)
    return bool(shorter) and len(shorter) < len(longer) and longer[: len(shorter)] == shorter

