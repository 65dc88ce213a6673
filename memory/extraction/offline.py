"""The offline extractor: English cue words and clause patterns, no model and no download.

Names are runs of capitalised words (a title in title case keeps its small words and its subtitle: "No Time
to Die", "Spider-Man: No Way Home"); their type comes from cue words (titles, "Corp", "Summit",
"Street", a following "workshop" or "laptop", a preceding "in", a known place, quotes). Greetings,
interjections and words capitalised only because they open a sentence are no names, and a name only
spoken to ("Thanks, Mel!") is no entity, nor is an unnamed thing of a turn where someone speaks of themself
or to the listener ("my car"). Later mentions of a name (its first word, its acronym, "the
trust", "she") are tied to the entity they refer to, and relations are read from the text between
two mentions of one clause, never across a negation. The speaker's "I" is the person only in the
person's own turns.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import NamedTuple

from memory.extraction import english
from memory.extraction.dates import stated_date
from memory.extraction.names import initials, name_core, name_tokens, singular
from memory.extraction.results import (
    ENTITY_TYPES,
    ExtractedEntity,
    ExtractedFact,
    ExtractedMention,
    ExtractedPreference,
    ExtractedRelation,
    Extraction,
    Turn,
)
from memory.extraction.rules import (
    IMPLICIT_EVENT,
    MUTUAL_ACQUAINTANCE,
    PREFERENCE_FORMS,
    REFERENCE_TOPIC,
    REQUEST_TOPIC,
    RULES,
    SPEAKER,
    TOPIC_END,
    predicate_cardinality,
    preference_topic,
)

TOKEN = re.compile(
    r"(?P<initialism>(?:[A-Z]\.){2,})"
    r"|(?P<title>\b(?:" + "|".join(t.capitalize() for t in english.TITLES) + r")\.)"
    r"|(?P<initial>\b[A-Z]\.(?=\s+[A-Z]))"
    r"|(?P<word>\b[AP]M(?=[A-Z][a-z])|\w+(?:[-&]\w+)*\+?)"  # a time's "PM" glued to the next word: "9:15 PMAlamo"
    r"|(?P<punct>[^\w\s])"
)
NEGATION = re.compile(english.NEGATION)
UNASSERTED = re.compile(rf"{english.NEGATION}|{english.ENDED}|{english.HEDGE}")
# What a negated, past or hedged statement says once its negation or modal is taken out, so its names can
# still be typed.
NEGATION_WORDS = re.compile(r"\b(?:do|does|did)\s+not\b|\b(?:do|does|did)n['’]t\b|\bno longer\b|\bnot\b|\bnever\b|"
                            r"n['’]t\b|\bcannot\b|\b(?:might|could|should|may|must)\b|" + english.ENDED)
# A turn where someone speaks of themself or to the listener ("my car", "a road trip we took", "your phone"): its
# unnamed things are nothing in particular to remember; they stay the objects of facts, never entities.
PERSONAL = re.compile(r"\b(?:I|[Mm]e|[Mm]y|[Mm]ine|[Ww]e|[Uu]s|[Oo]ur|[Oo]urs|[Yy]ou|[Yy]our|[Yy]ours|[Ll]et['’]s)\b")
# "X is playing at the Regal", "Is X showing now", "X (coming Nov 09)": a film, whatever its name looks like.
SHOWING = re.compile(r"\s+(?:is\s+|are\s+)?(?:now\s+|currently\s+|still\s+|also\s+)?(?:showing\s+(?:now|today|tonight|tomorrow|anywhere|"
                     r"there|at|in|near)|playing\s+(?:there|at|in|near))\b|\s*\((?:coming|out|released|opens)\b")
# The assistant asking where the person is: "In what city?", "Where are you located?" (not "What city is that theater in?").
WHERE_QUESTION = re.compile(r"(?:^|[.!?]\s+)(?:in\s+)?(?:what|which)\s+(?:city|town|area|state|neighbou?rhood)(?:\s+are\s+you"
                            r"(?:\s+in)?)?\?\s*$|\bwhere\s+are\s+you(?:\s+located|\s+based|\s+now)?\?\s*$", re.IGNORECASE)
PLACE_ANSWER_WORDS = 6
# Between two members of a list: a comma or "and", after a member's bracket ("Moonfall (PG-13), ").
LIST_GAP = re.compile(r"\s*(?:\([^()]*\)\s*)?(?:,\s*(?:and\s+)?|and\s+)")
LIST_TYPED_MEMBERS = 2
COORDINATION = re.compile(r"\s*,?\s+and\s+(?=[a-z])")
ATTRIBUTE_VALUE = r"\s+(?:is|was|are|were|has been|remains|stays)\s+(?:now\s+|currently\s+|still\s+|set to\s+)?(?P<value>.+)$"
POSSESSIVE_ATTRIBUTE = re.compile(r"['’]s?\s+(?P<attr>[a-z]+(?: [a-z]+)?)" + ATTRIBUTE_VALUE)
LEADING_ATTRIBUTE = re.compile(r"\bthe\s+(?P<attr>[a-z]+(?: [a-z]+)?)\s+(?:of|for)\s+$")
TRAILING_VALUE = re.compile(ATTRIBUTE_VALUE)
HAS_ATTRIBUTE = re.compile(
    r"\s+(?:has|had)\s+(?:a\s+|an\s+)?(?P<attr>" + "|".join(sorted(english.HAS_ATTRIBUTES)) + r")\s+(?:of\s+|set to\s+)?(?P<value>.+)$"
)
SPEAKER_ATTRIBUTE = re.compile(
    r"\s+(?P<attr>" + "|".join(sorted(english.SPEAKER_ATTRIBUTES, key=len, reverse=True)) + r")\s+(?:is|are)\s+(?P<value>.+)$",
    re.IGNORECASE,
)
# "I'm an assistant manager" (but not "a manager at X": that is an employer).
SPEAKER_ROLE = re.compile(
    r"(?:['’]m|\s+am)\s+(?:now\s+|currently\s+|still\s+|finally\s+)?(?:a|an)\s+"
    r"(?P<value>(?:[a-z-]+\s+){0,2}?(?:" + "|".join(sorted(english.JOB_NOUNS)) + r"))(?=\s*(?:$|[-–—.,;!?]))",
    re.IGNORECASE,
)
# "my dance crew": a group the speaker belongs to (not "my favourite band").
SPEAKER_GROUP = re.compile(r"\s+(?P<value>(?:(?!favou?rite\b)[a-z]+\s+)?(?:" + "|".join(sorted(english.GROUP_NOUNS)) + r"))\b",
                           re.IGNORECASE)
# "I started playing acoustic guitar", "I play the drums".
SPEAKER_PLAYS = re.compile(
    r"\s+(?:(?:have|had|just|also|still|now|often|really)\s+)*(?:(?:started|start|began|begin|love|like|enjoy|learned|"
    r"learnt|am learning)\s+(?:to\s+)?)?(?:playing|play|plays|played)\s+(?:the\s+|an?\s+)?"
    r"(?P<value>(?:[a-z]+\s+)?(?:" + "|".join(sorted(english.INSTRUMENTS)) + r"))\b", re.IGNORECASE)
# "Our one-year-old is so cute, his name is Kyle": the speaker's child, named.
CHILD_NAMED = re.compile(r"\b(?:my|our)\s+(?:[a-z-]+\s+)?(?:son|daughter|kid|child|baby|boy|girl|[a-z]+-year-old)\b"
                         r"[^.!?]*?\b(?:his|her) name is\s+(?P<value>[A-Z][\w'’-]+)", re.IGNORECASE)
VALUE_END = re.compile(r",|\s+(?:and|but)\s+", re.IGNORECASE)
# Facts are stored in one direction per meaning: "Y owns X" is the fact that X is owned by Y.
FACT_FORMS = {"OWNS": "OWNED_BY"}
APPOSITIVE = re.compile(r"^\s*,[^,;]*,")
LOCATION_PREPOSITIONS = {"in", "at", "from", "to", "near", "outside", "inside", "around", "across", "towards", "via", "into"}
WORK_WORDS = {"work", "works", "worked", "working", "job", "employed", "intern", "interned", "study", "studies", "studied"}
SYMMETRIC = {"KNOWS", "PARTNER_WITH"}
POSSESSIVES = {"its", "his", "her", "their", "my"}
# "... and I would like ...": a new subject after a conjunction starts a new clause.
SUBJECT_PRONOUNS = {"i", "we", "he", "she", "they"}
CLAUSE_BREAKERS = {"and", "but", "while", "whereas", "so", "although", "though"}
QUOTES = {'"', "“", "”", "‘"}
# What follows an apostrophe when a name is the subject of a verb ("Ilka's joined", "Sam'll come").
CONTRACTIONS = {"s", "ll", "d", "ve", "re"}
# Punctuation after a name that ends a form of address ("Thanks, Mel!").
VOCATIVE_AFTER = {",", ".", "!", "?", "…"}
APPOSITION_LEADS = {"the", "a", "an", "our", "my", "his", "her", "their"}
# Punctuation inside a sentence after which a capitalised word is still read as mid-sentence.
INNER_PUNCTUATION = {",", "'", "’", "&", "/"}
NEVER_NAMES = (english.MONTHS.keys() | english.WEEKDAYS | english.ROLE_TITLES | english.CHAT_ABBREVIATIONS
               | english.COMMON_ABBREVIATIONS | english.MEDIA_RATINGS)
STREET_TAILS = {"street", "st", "road", "rd", "avenue", "ave", "lane", "boulevard", "way", "drive", "court", "place"}
# How sure a name's type is: no cue, a weak one ("in X"), a relation rule that needs it, its own words ("X Corp").
NO_CUE, WEAK_CUE, RULE_CUE, STRONG_CUE = 0, 1, 2, 3
CUE_CONFIDENCE = {NO_CUE: 0.6, WEAK_CUE: 0.7, RULE_CUE: 0.8, STRONG_CUE: 0.9}
# Confidences of what is read: a relation between two names, one through "she" or "the firm", one implied
# ("spoke" at the latest event, "the two met"), an attribute ("X's status is ..."), a preference.
NAMED_CONFIDENCE, REFERENCE_CONFIDENCE, IMPLIED_CONFIDENCE = 0.8, 0.6, 0.5
ATTRIBUTE_CONFIDENCE = PREFERENCE_CONFIDENCE = 0.7


@dataclass(frozen=True)
class WordCue:
    """A name typed by its own words: its last word of several (`heads`), its first word (`leads`), a house
    number, the whole name (`names`) or a word after its first (`inner`)."""

    type: str
    heads: frozenset = frozenset()
    leads: frozenset = frozenset()
    numbered: bool = False
    names: frozenset = frozenset()
    inner: frozenset = frozenset()

    def fits(self, words: list[str]) -> bool:
        return (
            (len(words) > 1 and words[-1] in self.heads) or words[0] in self.leads or (self.numbered and words[0].isdigit())
            or " ".join(words) in self.names or bool(self.inner & set(words[1:]))
        )


@dataclass(frozen=True)
class PrepositionCue:
    """A name typed by the preposition before it, when the words just before include one of `near` (if given)."""

    type: str
    cue: int
    prepositions: frozenset
    near: frozenset = frozenset()

    def fits(self, before: list[str]) -> bool:
        return before[-1] in self.prepositions and (not self.near or bool(self.near & set(before)))


# The first cue that fits wins: "Orca Holdings", "Galway Harbour Festival", "Rua do Ouro", "221 Baker Street".
WORD_CUES = [
    WordCue("ORGANIZATION", heads=frozenset(english.ORGANIZATION_HEADS)),
    WordCue("EVENT", heads=frozenset(english.EVENT_HEADS)),
    WordCue("LOCATION", heads=frozenset(english.LOCATION_HEADS), leads=frozenset(english.STREET_LEADS), numbered=True),
    WordCue("LOCATION", inner=frozenset(english.VENUE_WORDS | english.SCREEN_FORMATS | {"@"})),
]
# After a place or thing noun has had its say ("the Leeds building"): a place known by name.
KNOWN_PLACE = WordCue("LOCATION", names=frozenset(english.PLACE_NAMES))
# "works at X" is an employer, "in X" or "at X" a place.
PREPOSITION_CUES = [
    PrepositionCue("ORGANIZATION", RULE_CUE, frozenset({"at"}), near=frozenset(WORK_WORDS)),
    PrepositionCue("OBJECT", RULE_CUE, frozenset(english.SCREENING_VERBS)),
    PrepositionCue("OBJECT", RULE_CUE, frozenset({"for", "to", "of"}), near=frozenset(english.SCREENING_NOUNS)),
    PrepositionCue("LOCATION", WEAK_CUE, frozenset(LOCATION_PREPOSITIONS)),
]
# The entity types a pronoun may refer to: the latest one mentioned before it of such a type.
PRONOUN_REFERENTS = {
    **dict.fromkeys(english.PERSON_PRONOUNS, frozenset({"PERSON"})),
    "its": frozenset({"ORGANIZATION"}),
    **dict.fromkeys(english.THING_PRONOUNS - {"its"}, frozenset(ENTITY_TYPES) - {"PERSON"}),
}


class _Name(NamedTuple):
    start: int
    end: int
    surface: str
    name: str
    type: str | None
    cue: int
    aliases: list[str]


@dataclass
class _Token:
    text: str
    start: int
    end: int
    kind: str

    @property
    def lower(self) -> str:
        return self.text.lower()

    @property
    def capitalised(self) -> bool:
        return self.kind in ("initialism", "initial", "title") or (self.kind == "word" and self.text[0].isupper())


@dataclass
class _Entity:
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
class _Slot:
    """A stretch of a clause that refers to one or more entities (or to the speaker)."""

    start: int
    end: int
    entities: list[_Entity]
    kind: str

    possessive: bool = False
    lead: str = ""  # read before the text that follows the slot: " " for a speaker the sentence leaves out

    def types(self) -> set[str]:
        return {SPEAKER} if self.kind == "speaker" else {e.type for e in self.entities}


class OfflineExtractor:
    """Extract POLE+O entities, relations, facts and preferences with English rules only."""

    name = "offline"

    def extract(
        self, *, text: str, role: str = "user", context: Sequence[Turn] = (), reference_date: date | None = None,
    ) -> Extraction:
        earlier = "\n\n".join(turn.content for turn in context)
        full = f"{earlier}\n\n{text}" if earlier else text
        offset = len(full) - len(text)
        document = _Document(full, reference_date=reference_date)
        document.read()
        asked_where = bool(context) and context[-1].role == "assistant" and WHERE_QUESTION.search(context[-1].content) is not None
        if role == "user" and asked_where and len(text.split()) <= PLACE_ANSWER_WORDS:
            document.place_answer(offset)
        return document.result(offset=offset, extractor=self.name, by_person=role == "user")


class _Document:
    def __init__(self, text: str, *, reference_date: date | None):
        self.text = text
        self.reference_date = reference_date
        self.sentences = _sentences([
            _Token(m.group(), m.start(), m.end(), m.lastgroup) for m in TOKEN.finditer(text)
        ], text)
        self.entities: list[_Entity] = []
        self.slots: list[_Slot] = []
        self.relations: list[tuple[_Entity, str, _Entity, float, int]] = []
        self.speaker_facts: list[tuple[str, _Entity, float, int]] = []
        self.attributes: list[tuple[_Entity, str, str, int]] = []
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
                if found in phrases and PERSONAL.search(self._turn_text(found.start)):
                    self.unnamed.add(id(entity))
        self._resolve_initialisms()
        for sentence in self.sentences:
            sentence_slots = self._slots(sentence, names.get(id(sentence), []))
            self.slots.extend(sentence_slots)
            question = sentence[-1].text == "?"
            for clause in _clauses(sentence):
                clause_slots = [s for s in sentence_slots if clause[0].start <= s.start < clause[-1].end]
                asserted = not question and not UNASSERTED.search(self.text[clause[0].start:clause[-1].end])
                self._relate(clause_slots, clause, asserted)
                if asserted:
                    self._attributes(clause_slots, clause)

    # Names -------------------------------------------------------------------------------------

    def _capitalised_names(self) -> dict[int, list[_Name]]:
        runs = {id(sentence): _capitalised_runs(sentence) for sentence in self.sentences}
        named_elsewhere = {
            t.lower for sentence in self.sentences for run, index in runs[id(sentence)] for t in run
            if len(run) > 1 or not _opens(sentence, index)
        }
        names = {}
        for sentence in self.sentences:
            found = []
            for run, index in runs[id(sentence)]:
                if len(run) == 1 and run[0].lower in english.DEMONYMS | english.SCREEN_FORMATS:
                    continue
                if _kind_of_food(run) and not _quoted(sentence, index, len(run)) and not _rated(sentence, index + len(run)):
                    continue  # "a Cappuccino with Vanilla", "Oat milk": a kind of drink, written with a capital
                if len(run) > 1 and all(t.text.isupper() for t in run) and any(t.lower in english.FUNCTION_WORDS for t in run):
                    continue  # "JUST DOING IT!": shouting, not a name
                if _opens(sentence, index) and len(run) == 1 and run[0].lower not in named_elsewhere \
                        and not _is_identifier(run[0].text) and not _paired(sentence, index + 1):
                    verb = _verb_follows(sentence, index + 1)
                    if verb is None or verb in english.PLURAL_VERBS:
                        continue  # "Colleagues still write", "Hard work pays": capitalised only because it opens
                    if verb in english.AUXILIARIES:
                        self.tentative.add(run[0].start)  # "Life is good", "Halima is a member": a name if a rule uses it
                classified = self._classify(run, sentence, index)
                if classified.cue == NO_CUE and _vocative(sentence, index, len(run)):
                    continue  # "Thanks, Mel!", "Hey Caroline, ...": the person spoken to, not something said
                if classified.cue == NO_CUE and _after_indefinite(sentence, index):
                    continue  # "a Mocha", "an iced Latte": a kind of thing written with a capital, nobody in particular
                found.append(classified)
            names[id(sentence)] = _list_typed(found, self.text)
        return names

    def _classify(self, run: list[_Token], sentence: list[_Token], index: int) -> _Name:
        """Return the name a run of capitalised words makes, with its type and how sure that type is."""
        words = [t.lower.strip(".") for t in run]
        start, end = run[0].start, run[-1].end
        surface = self.text[start:end]
        titled = run[0].kind == "title"
        name = self.text[run[1].start:end] if titled and len(run) > 1 else surface
        aliases = [surface] if titled else []
        after = sentence[index + len(run):]

        if titled or run[0].kind == "initial":
            return _Name(start, end, surface, name, "PERSON", STRONG_CUE, aliases)
        if _quoted(sentence, index, len(run)) or _rated(sentence, index + len(run)) or SHOWING.match(self.text[end:]):
            return _Name(start, end, surface, name, "OBJECT", STRONG_CUE, aliases)  # a title: "Becoming Nicole", "Moonfall (PG-13)"
        if len(run) == 1 and run[0].kind == "initialism":
            return _Name(start, end, surface, name, None, NO_CUE, aliases)  # typed once its expansion is known
        own = next((cue.type for cue in WORD_CUES if cue.fits(words)), None)
        if own is not None:
            return _Name(start, end, surface, name, own, STRONG_CUE, aliases + _venue_short_forms(run, self.text))
        extension = _place_or_thing_after(sentence[index + len(run):])
        if extension:
            kind, last = extension
            full = self.text[start:last.end]
            return _Name(start, last.end, full, full, kind, STRONG_CUE, [name])
        if KNOWN_PLACE.fits(words) or _place_follows(sentence, index + len(run)):
            return _Name(start, end, surface, name, KNOWN_PLACE.type, STRONG_CUE, aliases)  # "Austin, Texas": a city
        if any(c.isdigit() for w in words[1:] for c in w):
            return _Name(start, end, surface, name, "OBJECT", RULE_CUE, aliases)  # a model: "Falcon 3"
        if len(run) == 1 and _is_identifier(name):
            parts = re.split(r"[_-]", name.lower())
            kind = "ORGANIZATION" if parts[-1] in english.ORGANIZATION_HEADS else "OBJECT"
            return _Name(start, end, surface, name, kind, WEAK_CUE, aliases)
        if _title_words(run):
            return _Name(start, end, surface, name, "OBJECT", RULE_CUE, aliases)  # "Last Night in Soho"
        before = [t.lower for t in sentence[max(0, index - 4):index] if t.lower not in ("the", "a", "an")]
        context = next((cue for cue in PREPOSITION_CUES if before and cue.fits(before)), None)
        if context is not None:
            return _Name(start, end, surface, name, context.type, context.cue, aliases)
        if len(run) == 1 and len(name) > 1 and name.isupper():
            return _Name(start, end, surface, name, "ORGANIZATION", WEAK_CUE, aliases)
        return _Name(start, end, surface, name, "PERSON", NO_CUE, aliases)

    def _noun_phrases(self, sentence: list[_Token], names: list[_Name]) -> list[_Name]:
        """Return lowercase noun phrases that name a thing ("four minibuses") or an event ("its annual review")."""
        found = []
        named = {position for start, end, *_ in names for position in range(start, end)}
        for i, token in enumerate(sentence):
            head = token.lower
            is_thing = singular(head) in english.ARTEFACT_NOUNS or head in english.ARTEFACT_NOUNS
            if token.kind != "word" or token.capitalised or not (is_thing or head in english.EVENT_NOUNS):
                continue
            j = i
            while j > 0 and i - j < 2 and _is_modifier(sentence[j - 1]):
                j -= 1
            opener = sentence[j - 1] if j > 0 else None
            opener_named = opener is not None and opener.capitalised and not (opener is sentence[0] and opener.lower in english.DETERMINERS)
            if opener is None or opener_named or opener.start in named or token.start in named:
                continue
            counted = opener.lower in english.NUMBER_WORDS or opener.text.isdigit()
            if not (counted or opener.lower in english.DETERMINERS):
                continue
            definite = opener.lower in ("the", "this", "that", "these", "those")
            if j == i and (definite or not is_thing):
                continue  # "the arms" refers back; "a meeting" alone names no particular event
            start = opener.start if counted else sentence[j].start
            name = self.text[sentence[j].start:token.end]
            found.append(_Name(start, token.end, self.text[start:token.end], name, "OBJECT" if is_thing else "EVENT", RULE_CUE, []))
        return found

    def _register(self, start: int, end: int, surface: str, name: str, type_: str | None, cue: int,
                  aliases: list[str]) -> _Entity:
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
        entity = _Entity(name=name, type=type_, cue=cue, mentions=[mention])
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

    def _entity_at(self, start: int) -> _Entity | None:
        return next((e for e in self.entities if any(m.start == start for m in e.mentions)), None)

    # References --------------------------------------------------------------------------------

    def _slots(self, sentence: list[_Token], names: list[_Name]) -> list[_Slot]:
        slots = []
        taken = set()
        for start, end, *_ in names + self._noun_phrases(sentence, names):
            entity = self._entity_at(start)
            if entity is not None:
                slots.append(_Slot(start, end, [entity], "name"))
                taken.update(range(start, end))
        for i, token in enumerate(sentence):
            if token.start in taken:
                continue
            word = token.lower
            if word in english.SPEAKER_PRONOUNS and token.kind == "word":
                slots.append(_Slot(token.start, token.end, [], "speaker"))
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

    def _implied_speaker(self, sentence: list[_Token]) -> _Slot | None:
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
        return _Slot(verb.start, verb.start, [], "speaker", lead=" ")

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
        slots.append(_Slot(start, end, chosen, kind, possessive))
        if record:
            chosen[0].mentions.append(ExtractedMention(self.text[start:end], start, end, REFERENCE_CONFIDENCE))
        return True

    # Relations ---------------------------------------------------------------------------------

    def _relate(self, slots: list[_Slot], clause: list[_Token], asserted: bool) -> None:
        clause_start, clause_end = clause[0].start, clause[-1].end
        for i, subject in enumerate(slots):
            for j in range(i + 1, len(slots)):
                obj = slots[j]
                between = subject.lead + self.text[subject.end:obj.start]
                stripped = APPOSITIVE.sub("", between)
                inner = subject.end + len(between) - len(stripped)
                blocking = [s for s in slots[i + 1:j] if inner <= s.start and not s.possessive]
                if blocking:
                    # "Zainab moved to Accra and joined Cobaltline": the clause's subject carries over "and".
                    tail = self.text[blocking[-1].end:obj.start]
                    carried = COORDINATION.match(tail)
                    if i > 0 or carried is None:
                        continue
                    stripped = " " + tail[carried.end():]
                self._match(subject, obj, stripped.lower(), self.text[clause_start:subject.start].lower(), asserted)
            rest = self.text[subject.end:clause_end].lower()
            later = slots[i + 1:]
            if not asserted:
                continue
            if IMPLICIT_EVENT.match(rest) and not any("EVENT" in s.types() for s in later) and not NEGATION.search(rest):
                event = self._latest(subject.start, "EVENT")
                if event is not None:
                    self._emit(subject, "PARTICIPATED_IN", [event], IMPLIED_CONFIDENCE)
            if subject.kind == "plural" and MUTUAL_ACQUAINTANCE.match(rest) and not NEGATION.search(rest):
                first, second = subject.entities[:2]
                self._emit(_Slot(0, 0, [first], "plural"), "KNOWS", [second], IMPLIED_CONFIDENCE)

    def _match(self, subject: _Slot, obj: _Slot, between: str, before: str, asserted: bool) -> None:
        """Emit the rule that fits with the fewest weakly typed names retyped (the first such), and retype them.

        A negated, past, hedged or questioned statement still types its names ("did not join X": X is an
        organisation) but states no relation.
        """
        between = re.sub(r"^['’]ve\b", " have", re.sub(r"^['’]m\b", " am", re.sub(r"^['’]re\b", " are", between)))
        asserted = asserted and not NEGATION.search(between)
        between = re.sub(r"\s+", " ", NEGATION_WORDS.sub(" ", between)) if between.strip() else between
        fitting = []
        for rule in RULES:
            source, target = (obj, subject) if rule.inverse else (subject, obj)
            if rule.before is not None and not rule.before.search(before):
                continue
            if not rule.between.fullmatch(between):
                continue
            retype = rule.retypes and rule.relation != "ALIAS_OF"
            if rule.relation == "ALIAS_OF" and not (source.kind == target.kind == "name"):
                continue
            source_changes, target_changes = _fit(source, rule.subjects, retype), _fit(target, rule.objects, retype)
            if source_changes is not None and target_changes is not None:
                fitting.append((len(source_changes) + len(target_changes), len(fitting), rule, source, target,
                                source_changes + target_changes))
        if not fitting:
            return
        _, _, rule, source, target, changes = min(fitting, key=lambda fit: fit[:2])
        self.tentative -= {m.start for slot in (source, target) for e in slot.entities for m in e.mentions}
        for entity, type_ in changes:
            entity.type, entity.cue = type_, RULE_CUE
        if rule.relation is not None and asserted:
            confidence = NAMED_CONFIDENCE if source.kind == target.kind == "name" else REFERENCE_CONFIDENCE
            self._emit(source, rule.relation, target.entities, confidence)

    def _attributes(self, slots: list[_Slot], clause: list[_Token]) -> None:
        """Record "X's status is degraded", "the priority of X is high" and "X has status blocked"."""
        clause_start, clause_end = clause[0].start, clause[-1].end
        child = CHILD_NAMED.search(self.text[clause_start:clause_end])
        if child is not None:
            self.speaker_attributes.append(("PARENT_OF", child.group("value"), clause_start + child.start()))
        for slot in slots:
            if slot.kind == "speaker" and self.text[slot.start:slot.end].lower() == "my":
                self._speaker_attribute(slot, slots, clause_end)
                group = SPEAKER_GROUP.match(self.text[slot.end:clause_end])
                if group is not None:
                    self.speaker_attributes.append(("MEMBER_OF", group.group("value").lower(), slot.start))
            if slot.kind == "speaker" and self.text[slot.start:slot.end].lower() == "i":
                role = SPEAKER_ROLE.match(self.text[slot.end:clause_end])
                if role is not None:
                    self.speaker_attributes.append(("HAS_ROLE", role.group("value").lower(), slot.start))
                plays = SPEAKER_PLAYS.match(self.text[slot.end:clause_end])
                if plays is not None:
                    self.speaker_attributes.append(("PLAYS", plays.group("value").lower(), slot.start))
            if slot.kind != "name" or len(slot.entities) != 1:
                continue
            after = self.text[slot.end:clause_end]
            found = POSSESSIVE_ATTRIBUTE.match(after) or HAS_ATTRIBUTE.match(after)
            attribute = found and found.group("attr")
            if found is None:
                leading = LEADING_ATTRIBUTE.search(self.text[clause_start:slot.start].lower())
                found = leading and TRAILING_VALUE.match(after)
                attribute = leading and leading.group("attr")
            if not found:
                continue
            value_start = slot.end + found.start("value")
            target = next((s for s in slots if s.start == value_start and len(s.entities) == 1), None)
            value = target.entities[0].name if target else found.group("value").strip(" .!,;:")
            if value and len(value.split()) <= 4:
                predicate = english.ATTRIBUTE_RELATIONS.get(attribute, "HAS_" + attribute.upper().replace(" ", "_"))
                self.attributes.append((slot.entities[0], predicate, value, slot.start))

    def _speaker_attribute(self, slot: _Slot, slots: list[_Slot], clause_end: int) -> None:
        """Record "my name is Sam" as the speaker's HAS_NAME."""
        found = SPEAKER_ATTRIBUTE.match(self.text[slot.end:clause_end])
        if found is None:
            return
        value_start = slot.end + found.start("value")
        target = next((s for s in slots if s.start == value_start and len(s.entities) == 1), None)
        value = target.entities[0].name if target else VALUE_END.split(found.group("value"), maxsplit=1)[0].strip(" .!,;:")
        if value and len(value.split()) <= 4:
            self.speaker_attributes.append(("HAS_" + found.group("attr").upper().replace(" ", "_"), value, slot.start))

    def _emit(self, source: _Slot, relation: str, targets: list[_Entity], confidence: float) -> None:
        position = source.start
        for target in targets:
            if source.kind == "speaker":
                self.speaker_facts.append((relation, target, confidence, position))
                continue
            for entity in source.entities:
                if entity is not target:
                    self.relations.append((entity, relation, target, confidence, position))

    def _latest(self, before: int, type_: str) -> _Entity | None:
        candidates = [(max(m.start for m in e.mentions if m.start < before), e) for e in self.entities
                      if e.type == type_ and any(m.start < before for m in e.mentions)]
        return max(candidates, key=lambda pair: pair[0])[1] if candidates else None

    # Result ------------------------------------------------------------------------------------

    def result(self, *, offset: int, extractor: str, by_person: bool) -> Extraction:
        """Return what the text after `offset` states; the speaker's "I" is the person only when `by_person`."""
        relations, facts, seen = [], [], set()
        for source, relation, target, confidence, position in self.relations:
            if position < offset or (source.name, relation, target.name) in seen:
                continue
            seen.add((source.name, relation, target.name))
            if relation in SYMMETRIC:
                seen.add((target.name, relation, source.name))
            when = self._date_near(position)
            if not {id(source), id(target)} & self.unnamed:
                relations.append(ExtractedRelation(source.name, relation, target.name, confidence, when,
                                                   self._sentence_text(position)))
            facts.append(_fact(source.name, relation, target.name, confidence, when))
        for relation, target, confidence, position in self.speaker_facts:
            if by_person and position >= offset and ("user", relation, target.name) not in seen:
                seen.add(("user", relation, target.name))
                facts.append(_fact("user", relation, target.name, confidence, self._date_near(position)))
        for predicate, value, position in self.speaker_attributes:
            if by_person and position >= offset and ("user", predicate, value) not in seen:
                seen.add(("user", predicate, value))
                facts.append(_fact("user", predicate, value, ATTRIBUTE_CONFIDENCE, self._date_near(position)))
        for subject, predicate, value, position in self.attributes:
            if position >= offset and (subject.name, predicate, value) not in seen:
                seen.add((subject.name, predicate, value))
                facts.append(_fact(subject.name, predicate, value, ATTRIBUTE_CONFIDENCE, self._date_near(position)))
        involved = {r.source for r in relations} | {r.target for r in relations}
        involved |= {f.subject for f in facts} | {f.object for f in facts}
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
                    name=entity.name, type=entity.type, aliases=[a for a in entity.aliases if a != entity.name],
                    mentions=mentions, confidence=CUE_CONFIDENCE[entity.cue],
                ))
        return Extraction(
            entities=entities, relations=relations, facts=facts,
            preferences=_preferences(self.text[offset:]) if by_person else [], extractor=extractor,
        )

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

    def _date_near(self, position: int) -> date | None:
        return stated_date(self._sentence_text(position), reference_date=self.reference_date)


def _fact(subject: str, predicate: str, obj: str, confidence: float, when: date | None) -> ExtractedFact:
    if predicate in FACT_FORMS:
        subject, predicate, obj = obj, FACT_FORMS[predicate], subject
    return ExtractedFact(subject, predicate, obj, predicate_cardinality(predicate), confidence, when)


def _fit(slot: _Slot, allowed: tuple, retype: bool) -> list[tuple[_Entity, str]] | None:
    """Return the retyping that lets `slot` fill a rule's argument ([] when none is needed), or None."""
    if slot.types() <= set(allowed):
        return []
    if not retype or slot.kind != "name" or any(e.cue > WEAK_CUE for e in slot.entities):
        return None
    wanted = next(t for t in allowed if t != SPEAKER)
    return [(e, wanted) for e in slot.entities]


def _coordinated(slots: list[_Slot], text: str) -> list[_Slot]:
    """Join two names of one type written "A and B" into one slot, so both take the clause's verb."""
    joined = []
    for slot in slots:
        last = joined[-1] if joined else None
        if (last is not None and last.kind == slot.kind == "name" and last.types() == slot.types()
                and text[last.end:slot.start] == " and "):
            joined[-1] = _Slot(last.start, slot.end, last.entities + slot.entities, "name")
        else:
            joined.append(slot)
    return joined


def _is_identifier(word: str) -> bool:
    """Return whether a word is written like a code name: Service_Checkout, AuthModule, BUG-3310."""
    camel = re.search(r"[a-z][A-Z]", word) is not None and not re.match(r"(?:Mc|Mac)[A-Z]", word)
    return "_" in word or camel or any(c.isdigit() for c in word)


def _verb_follows(sentence: list[_Token], index: int) -> str | None:
    """Return the verb that comes next, adverbs skipped: "Wendell no longer lives" but not "Readers rarely notice"."""
    while index < len(sentence) and (sentence[index].lower in english.VERB_ADVERBS or sentence[index].lower.endswith("ly")):
        index += 1
    if index + 1 < len(sentence) and sentence[index].text in "'’" and sentence[index + 1].lower in CONTRACTIONS:
        return "is"
    return sentence[index].lower if index < len(sentence) and sentence[index].lower in english.CLAUSE_VERBS else None


def _sentences(tokens: list[_Token], text: str) -> list[list[_Token]]:
    """Split tokens at sentence ends and at line breaks: a turn or a line of chat ends its sentence."""
    sentences, current = [], []
    for token in tokens:
        if current and "\n" in text[current[-1].end:token.start]:
            sentences.append(current)
            current = []
        current.append(token)
        if token.kind == "punct" and token.text in ".!?":
            sentences.append(current)
            current = []
    if current:
        sentences.append(current)
    return sentences


def _clauses(sentence: list[_Token]) -> list[list[_Token]]:
    clauses, current = [], []
    for i, token in enumerate(sentence):
        following = sentence[i + 1].lower if i + 1 < len(sentence) else ""
        if token.text == ";" or (token.text == "," and following in CLAUSE_BREAKERS) or (
                token.lower in CLAUSE_BREAKERS and following in SUBJECT_PRONOUNS):
            if current:
                clauses.append(current)
            current = []
            continue
        current.append(token)
    if current:
        clauses.append(current)
    return clauses


def _vocative(sentence: list[_Token], index: int, length: int) -> bool:
    """Return whether the name at `index` is only a form of address: after a greeting or a comma, before a pause."""
    after = sentence[index + length] if index + length < len(sentence) else None
    if length > 1 or (after is not None and not (after.kind == "punct" and after.text in VOCATIVE_AFTER)):
        return False
    following = sentence[index + 2] if index + 2 < len(sentence) else None
    if following is not None and following.lower in APPOSITION_LEADS:
        return False  # "Ravi, the chief engineer, ...": an apposition names someone
    before = sentence[:index]
    if len(before) > 1 and before[-1].text == "," and before[-2].capitalised and before[-2].lower not in english.INTERJECTIONS \
            and after is not None and after.text == "," and index + 2 < len(sentence) and sentence[index + 2].capitalised:
        return False  # "Red Notice, Annaatthe, Shang-Chi": one of a list of names
    if all(t.lower in english.INTERJECTIONS or t.text == "," for t in before):
        return True
    return (before[-1].text == "," or before[-1].lower in english.GREETINGS | english.PRAISE_BEFORE_ADDRESS
            or [t.lower for t in before[-2:]] == ["thank", "you"])


def _place_follows(sentence: list[_Token], index: int) -> bool:
    """Return whether a comma and a known place follow: "Austin, Texas", "Davis, California"."""
    if index + 1 >= len(sentence) or sentence[index].text != ",":
        return False
    end = index + 1
    while end < len(sentence) and sentence[end].capitalised:
        end += 1
    return end > index + 1 and KNOWN_PLACE.fits([t.lower for t in sentence[index + 1:end]])


def _paired(sentence: list[_Token], index: int) -> bool:
    """Return whether a sentence opener is paired with a name ("Luna and Oliver!") or a place ("Austin, Texas")."""
    joined = (index + 1 < len(sentence) and sentence[index].lower == "and" and _is_name_word(sentence[index + 1], False)
              and sentence[index + 1].lower not in english.FUNCTION_WORDS)
    return joined or _place_follows(sentence, index)


def _after_indefinite(sentence: list[_Token], index: int) -> bool:
    """Return whether "a" or "an" comes just before the word at `index`, two lowercase modifiers allowed."""
    while index > 1 and sentence[index - 1].text == "/" and sentence[index - 2].capitalised:
        index -= 2  # "a Comedy/Pranks": alternatives of one kind
    for back in range(index - 1, max(index - 4, -1), -1):
        if sentence[back].lower in ("a", "an"):
            return True
        if not _is_modifier(sentence[back]):
            return False
    return False


def _quoted(sentence: list[_Token], index: int, length: int) -> bool:
    """Return whether a run stands in quotes, as titles of books, songs and shows do."""
    after = sentence[index + length] if index + length < len(sentence) else None
    return index > 0 and sentence[index - 1].text in QUOTES and (after is None or after.text in QUOTES | {".", ",", "!", "?"})


def _rated(sentence: list[_Token], index: int) -> bool:
    """Return whether a film rating in brackets follows: "Moonfall (PG-13)"."""
    return (index + 2 < len(sentence) and sentence[index].text == "(" and sentence[index + 1].lower in english.MEDIA_RATINGS
            and sentence[index + 2].text == ")")


def _opens(sentence: list[_Token], index: int) -> bool:
    """Return whether the word at `index` opens the sentence or follows a dash, colon, quote or emoji.

    A quote that closes again after a run of capitalised words opens a title, not a sentence ('"Brave" by').
    """
    if index == 0:
        return True
    before = sentence[index - 1]
    if before.kind != "punct" or before.text in INNER_PUNCTUATION:
        return False
    if before.text not in QUOTES:
        return True
    end = index
    while end < len(sentence) and (sentence[end].capitalised or sentence[end].lower in english.NAME_CONNECTORS):
        end += 1
    return not _quoted(sentence, index, end - index)


def _is_name_word(token: _Token, first: bool) -> bool:
    if not token.capitalised or token.lower in NEVER_NAMES or (token.kind == "word" and len(token.text) == 1 and token.text != "I"):
        return False
    if first and (token.lower in english.INTERJECTIONS or token.lower in english.IMPLIED_SUBJECT_VERBS):
        return False
    return not (token.lower in english.FUNCTION_WORDS and (first or token.lower == "i"))


def _capitalised_runs(sentence: list[_Token]) -> list[tuple[list[_Token], int]]:
    """Return maximal runs of capitalised words (with numbers and connectors inside) and their index.

    A title ("No Time to Die", "Spider-Man: No Way Home", "The King's Man (R)") also takes small lowercase
    words, a colon before its subtitle and possessives; "Clifford the Big Red Dog" takes its epithet.
    """
    runs, i = [], 0

    def name_at(k: int) -> bool:
        return k < len(sentence) and _is_name_word(sentence[k], False)

    while i < len(sentence):
        token = sentence[i]
        titled = _rated_ahead(sentence, i) or (
            token.kind == "word" and token.text[0].isupper() and token.lower in english.TITLE_OPENERS and name_at(i + 1)
            and (not _opens(sentence, i) or _title_cased(sentence, i + 1)))
        if not titled and (not _is_name_word(token, _opens(sentence, i)) or token.lower in english.FUNCTION_WORDS):
            i += 1
            continue
        j = i + 1
        while j < len(sentence):
            token = sentence[j]
            if _is_name_word(token, False) or token.text.isdigit():
                titled = titled or token.lower in english.FUNCTION_WORDS
                j += 1
            elif (token.lower == "and" and j + 1 < len(sentence) and sentence[j + 1].lower in english.SCREEN_FORMATS) or (
                    token.text == "@" and name_at(j + 1)):
                j += 2  # "Cinemark 17 and XD", "Regal Arbor @ Great Hills": one venue
            elif token.lower in english.NAME_CONNECTORS and name_at(j + 1) and sentence[j + 1].lower not in english.FUNCTION_WORDS:
                j += 2
            elif token.text == ":" and name_at(j + 1) and (not _opens(sentence, i) or name_at(j + 2)):
                titled, j = True, j + 1  # a subtitle, unless "Note: Sam is late" opens a sentence
            elif titled and token.text.islower() and token.lower in english.TITLE_SMALL_WORDS and name_at(j + 1):
                j += 1
            elif titled and token.text in "'’" and (name_at(j + 1) or (sentence[j + 1:j + 2] and sentence[j + 1].lower == "s"
                                                                        and name_at(j + 2))):
                j += 1 if name_at(j + 1) else 2  # "World Heroes' Mission", "The King's Man"
            elif token.text in QUOTES and name_at(j + 1) and j + 3 < len(sentence) and sentence[j + 2].text in QUOTES \
                    and name_at(j + 3):
                j += 4  # a nickname between a first and a last name: 'Jocinda "Jo" Fowler'
            elif token.lower == "the" and token.text.islower() and j == i + 1 and name_at(j + 1) \
                    and sentence[j + 1].lower not in english.FUNCTION_WORDS:
                titled, j = True, j + 1  # an epithet: "Clifford the Big Red Dog"
            else:
                break
        colon = next((k for k in range(i + 1, j) if sentence[k].text == ":"), None)
        subtitle = [t.lower for t in sentence[colon + 1:j]] if colon is not None else []
        if subtitle and (set(subtitle) <= english.FUNCTION_WORDS or any(cue.fits(subtitle) for cue in WORD_CUES)):
            j = colon  # "Moonfall: The world", "showing Scream: Alamo Drafthouse Cinema": no subtitle
        start = i
        lead = sentence[i - 1] if i > 0 else None
        words = [t.lower for t in sentence[i:j]]
        if lead is not None and lead.text.isdigit() and (words[0] in english.STREET_LEADS or words[-1] in STREET_TAILS):
            start = i - 1
        runs.append((sentence[start:j], start))
        i = j
    return runs


def _list_typed(names: list[_Name], text: str) -> list[_Name]:
    """Give the names of a list ("Eternals, Red Notice, No Time to Die and Dune") the type its typed members agree on.

    Only names with no cue of their own take it, and only from at least two members typed by their own words or a rule.
    """
    groups: list[list[_Name]] = []
    for name in names:
        if groups and LIST_GAP.fullmatch(text[groups[-1][-1].end:name.start]):
            groups[-1].append(name)
        else:
            groups.append([name])
    typed = []
    for group in groups:
        firm = [n.type for n in group if n.cue >= RULE_CUE]
        kind = firm[0] if len(firm) >= LIST_TYPED_MEMBERS and len(set(firm)) == 1 else None
        typed.extend(n._replace(type=kind, cue=WEAK_CUE) if kind and n.cue == NO_CUE else n for n in group)
    return typed


def _title_cased(sentence: list[_Token], index: int) -> bool:
    """Return whether the capitalised words from `index` on include a capitalised small word: "Time To Die"."""
    while index < len(sentence) and _is_name_word(sentence[index], False):
        if sentence[index].lower in english.FUNCTION_WORDS:
            return True
        index += 1
    return False


def _title_words(run: list[_Token]) -> bool:
    """Return whether a run reads as a title: a subtitle, or small words inside it ("No Time to Die")."""
    return (run[0].lower in english.TITLE_OPENERS - {"the"} or any(
        t.text == ":" or (t.lower in english.FUNCTION_WORDS and t.lower not in english.NAME_CONNECTORS) for t in run[1:]))


def _rated_ahead(sentence: list[_Token], index: int) -> bool:
    """Return whether a title in title case that starts at `index` is closed by a film rating: "Pretty in Pink (PG-13)"."""
    if not (sentence[index].kind == "word" and sentence[index].text[0].isupper()):
        return False
    k = index
    while k < len(sentence) and (sentence[k].capitalised or sentence[k].text.isdigit() or sentence[k].text in ":'’"
                                 or sentence[k].lower in english.TITLE_SMALL_WORDS or sentence[k].lower == "s"):
        k += 1
    return k > index and _rated(sentence, k)


def _kind_of_food(run: list[_Token]) -> bool:
    words = {t.lower for t in run}
    return words <= english.FOOD_AND_DRINK | english.FOOD_MODIFIERS and bool(words & english.FOOD_AND_DRINK)


def _venue_short_forms(run: list[_Token], text: str) -> list[str]:
    """Return a venue's name before its screen formats or its "@" ("Cinemark 17" of "Cinemark 17 and XD")."""
    cut = next((i for i, t in enumerate(run) if i and (t.lower in english.SCREEN_FORMATS or t.text == "@")), None)
    if cut is None:
        return []
    last = cut - 2 if run[cut - 1].lower == "and" else cut - 1
    return [text[run[0].start:run[last].end]] if last >= 0 else []


def _place_or_thing_after(after: list[_Token]) -> tuple[str, _Token] | None:
    """Return the type and last word of a lowercase place, thing or event noun right after a name ("LGBTQ conference")."""
    if not after or after[0].kind != "word" or after[0].capitalised:
        return None
    first = after[0].lower
    if first in english.PLACE_MODIFIERS and len(after) > 1 and after[1].lower in english.PLACE_NOUNS:
        return "LOCATION", after[1]
    if first in english.PLACE_NOUNS:
        return "LOCATION", after[0]
    if singular(first) in english.ARTEFACT_NOUNS or first in english.ARTEFACT_NOUNS:
        return "OBJECT", after[0]
    if first in english.EVENT_NOUNS:
        return "EVENT", after[0]
    if _is_modifier(after[0]) and len(after) > 1 and after[1].lower in english.EVENT_NOUNS:
        return "EVENT", after[1]
    return None


def _is_modifier(token: _Token) -> bool:
    return (
        token.kind == "word" and token.text.isalpha() and token.text.islower()
        and token.lower not in english.FUNCTION_WORDS and token.lower not in english.DETERMINERS
        and (not token.lower.endswith("ly") or token.lower in english.LY_ADJECTIVES)
    )


def _same_entity(entity: _Entity, name: str, type_: str | None, cue: int) -> bool:
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


def _preferences(text: str) -> list[ExtractedPreference]:
    """Return the preferences `text` states, in the order it states them."""
    found = []
    for form in PREFERENCE_FORMS:
        for match in form.pattern.finditer(text):
            said = match.group("topic") if "topic" in form.pattern.groupindex else None
            topic = (said or TOPIC_END.split(text[match.end():], maxsplit=1)[0]).strip(" ,")
            if not topic or REFERENCE_TOPIC.match(topic) or REQUEST_TOPIC.search(topic):
                continue
            groups = {k: v.strip() for k, v in match.groupdict().items() if v and k != "topic"}
            words = set(re.findall(r"[a-z]+", f"{groups.get('about', '')} {topic}".lower()))
            found.append((match.start(), ExtractedPreference(
                category=next((c for c, cues in english.PREFERENCE_CATEGORIES.items() if cues & words), "general"),
                preference=form.statement.format(topic=topic, **groups), confidence=PREFERENCE_CONFIDENCE,
                topic=preference_topic(topic), polarity=form.polarity,
            )))
    return [preference for _, preference in sorted(found, key=lambda pair: pair[0])]
