"""Names: runs of capitalised words and unnamed noun phrases, and the type each one's words and place give it."""

import re
from dataclasses import dataclass
from typing import NamedTuple

from memory.extraction import english
from memory.extraction.gazetteer import given_name, place_known, place_named, surname
from memory.extraction.names import singular
from memory.extraction.offline.cues import (head_before_of, kind_type, plural_group, screening_of, seen_at_cinema,
                                            venue_showing)
from memory.extraction.offline.tokens import Token

# "X is playing at the Regal", "Is X showing now", "X (coming Nov 09)": a film, whatever its name looks like.
SHOWING = re.compile(r"\s+(?:is\s+|are\s+)?(?:now\s+|currently\s+|still\s+|also\s+)?(?:showing\s+(?:now|today|tonight|tomorrow|anywhere|"
                     r"there|at|in|near)|playing\s+(?:there|at|in|near))\b|\s*\((?:coming|out|released|opens)\b|"
                     r"\s+(?:showing|playing)\s*\?|\s+out\s+(?:yet|now)\b|\s+has\s+a\s+run\s?time\b")
# A title in quotes, double or single ("The Name of the Wind", 'Embracing Identity'): one name, whatever its words.
QUOTED_TITLE = re.compile(r"[\"“‘](?P<double>[A-Z0-9][^\"“”‘’\n]{0,80}?)[.,]?[\"”’]|(?<![\w'’])'(?P<single>[A-Z][^'\n]{0,80}?)[.,]?'(?!\w)")
TITLE_WORDS_MAX = 10
# An acronym in the plural ("DIYs", "RPGs") is a kind of thing, not a particular one.
PLURAL_ACRONYM = re.compile(r"[A-Z]{2,}s")
# Between two members of a list: a comma or "and", after a member's bracket ("Moonfall (PG-13), ").
LIST_GAP = re.compile(r"\s*(?:\([^()]*\)\s*)?(?:,\s*(?:and\s+)?|and\s+)")
LIST_TYPED_MEMBERS = 2
LOCATION_PREPOSITIONS = {"in", "at", "from", "to", "near", "outside", "inside", "around", "across", "towards", "via", "into"}
WORK_WORDS = {"work", "works", "worked", "working", "job", "employed", "intern", "interned", "study", "studies", "studied"}
QUOTES = {'"', "“", "”", "‘"}
# What follows an apostrophe when a name is the subject of a verb ("Ilka's joined", "Sam'll come").
CONTRACTIONS = {"s", "ll", "d", "ve", "re"}
# Punctuation after a name that ends a form of address ("Thanks, Mel!").
VOCATIVE_AFTER = {",", ".", "!", "?", "…", "-", "–", "—"}
APPOSITION_LEADS = {"the", "a", "an", "our", "my", "his", "her", "their"}
# Punctuation inside a sentence after which a capitalised word is still read as mid-sentence.
INNER_PUNCTUATION = {",", "'", "’", "&", "/"}
NEVER_NAMES = (english.MONTHS.keys() | english.WEEKDAYS | english.ROLE_TITLES | english.CHAT_ABBREVIATIONS
               | english.COMMON_ABBREVIATIONS | english.MEDIA_RATINGS)
STREET_TAILS = {"street", "st", "road", "rd", "avenue", "ave", "lane", "boulevard", "way", "drive", "court", "place"}
# How sure a name's type is: no cue, a weak one ("in X"), a relation rule that needs it, its own words ("X Corp").
NO_CUE, WEAK_CUE, RULE_CUE, STRONG_CUE = 0, 1, 2, 3
CUE_CONFIDENCE = {NO_CUE: 0.6, WEAK_CUE: 0.7, RULE_CUE: 0.8, STRONG_CUE: 0.9}


@dataclass(frozen=True)
class WordCue:
    """A name typed by its own words: its last word of several or its word before "of" (`heads`), its first word
    (`leads`), a house number, the whole name (`names`) or a word after its first (`inner`)."""

    type: str
    heads: frozenset = frozenset()
    leads: frozenset = frozenset()
    numbered: bool = False
    names: frozenset = frozenset()
    inner: frozenset = frozenset()

    def fits(self, words: list[str]) -> bool:
        return (
            (len(words) > 1 and words[-1] in self.heads) or words[0] in self.leads or (self.numbered and words[0].isdigit())
            or " ".join(words) in self.names or bool(self.inner & set(words[1:])) or head_before_of(words, self.heads)
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
# A company or platform known by name ("Instagram and TikTok can help you").
KNOWN_ORGANIZATION = WordCue("ORGANIZATION", names=frozenset(english.ORGANIZATION_NAMES))
# "works at X" is an employer, "in X" or "at X" a place, "to X" one after a verb of going; what is played or
# driven is a thing, and what one posts "on" a platform.
PREPOSITION_CUES = [
    PrepositionCue("ORGANIZATION", RULE_CUE, frozenset({"at"}), near=frozenset(WORK_WORDS)),
    PrepositionCue("OBJECT", RULE_CUE, frozenset(english.SCREENING_VERBS | english.USE_VERBS)),
    PrepositionCue("OBJECT", RULE_CUE, frozenset({"for", "to", "of"}), near=frozenset(english.SCREENING_NOUNS)),
    PrepositionCue("LOCATION", WEAK_CUE, frozenset({"to"}), near=frozenset(english.TRAVEL_WORDS)),
    PrepositionCue("LOCATION", WEAK_CUE, frozenset(LOCATION_PREPOSITIONS - {"to"})),
    PrepositionCue("ORGANIZATION", WEAK_CUE, frozenset({"on"}), near=frozenset(english.POSTING_WORDS)),
]
# Initials before a surname: "J.K.", "J. R. R." (one word when written without spaces).
INITIALS = re.compile(r"(?:[A-Z]\.){1,3}")
# A sequel's or a model's number in Roman numerals ("Civilization VI"), unless a first name leads ("Elizabeth II").
ROMAN_NUMERAL = re.compile(r"(?=[ivx]{2,}$|[vx]$)x{0,2}(?:ix|iv|v?i{0,3})")
# People take no article nor "my": "the Prius", "my Zen" name things (a title, "the Reverend X", is read before).
THING_DETERMINERS = {"the", "my", "your", "our", "his", "her", "their", "this", "that"}
# Words just before a name that meet or go along with someone: "touring with Frank Ocean" is no sea.
PERSON_LEADS = {"with", "meet", "met", "meeting"}
# Words after which a name closing a sentence of thanks is still its object ("Thanks for the card from Sarah!").
OBJECT_LEADS = LOCATION_PREPOSITIONS | english.TITLE_SMALL_WORDS | english.DETERMINERS | english.AUXILIARIES | {
    "about", "like", *english.IMPLIED_SUBJECT_VERBS}


class Name(NamedTuple):
    start: int
    end: int
    surface: str
    name: str
    type: str | None
    cue: int
    aliases: list[str]


class NameReader:
    """Find the names of a document's sentences (its `text`, `sentences` and `tentative` openers)."""

    def _capitalised_names(self) -> dict[int, list[Name]]:
        runs = {id(sentence): _capitalised_runs(sentence) for sentence in self.sentences}
        named_elsewhere = {
            t.lower for sentence in self.sentences for run, index in runs[id(sentence)] for t in run
            if len(run) > 1 or not _opens(sentence, index)
        }
        self.addressed = {run[0].lower for s in self.sentences for run, index in runs[id(s)] if _vocative(s, index, len(run))}
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
                if (len(run) == 1 and (PLURAL_ACRONYM.fullmatch(run[0].text) or run[0].lower in english.GREETINGS)) \
                        or " ".join(t.lower for t in run) in english.SET_PHRASES:
                    continue  # "DIYs", "Thanks", "Bon Voyage"
                if len(run) > 1 and run[0].lower in english.DEMONYMS and run[-1].lower.endswith("s"):
                    continue  # "German Shepherds": a kind, not a name
                if _opens(sentence, index) and run[0].kind == "word" and (run[0].lower in english.OPENING_PREPOSITIONS or (
                        run[0].lower not in named_elsewhere and (
                        run[0].lower.endswith("ly") or (len(run) == 1 and run[0].lower.endswith("ing"))))):
                    run, index = run[1:], index + 1  # "Recently started", "Getting started", "Besides Italy"
                    if not run:
                        continue
                if _opens(sentence, index) and len(run) == 1 and run[0].lower not in named_elsewhere \
                        and not _is_identifier(run[0].text) and not _paired(sentence, index + 1):
                    verb = _verb_follows(sentence, index + 1)
                    if verb is None or verb in english.PLURAL_VERBS:
                        continue  # "Colleagues still write", "Hard work pays": capitalised only because it opens
                    if verb in english.AUXILIARIES:
                        self.tentative.add(run[0].start)  # "Life is good", "Halima is a member": a name if a rule uses it
                classified = self._classify(run, sentence, index)
                if classified.cue == NO_CUE and self._participant(run, sentence, index):
                    continue  # "Sorry about your job Jon": someone in the conversation, known by their role
                if classified.cue == NO_CUE and _vocative(sentence, index, len(run)):
                    continue  # "Thanks, Mel!", "Hey Caroline, ...": the person spoken to, not something said
                if classified.cue == NO_CUE and _after_indefinite(sentence, index):
                    continue  # "a Mocha", "an iced Latte": a kind of thing written with a capital, nobody in particular
                found.append(classified)
            titles = self._quoted_titles(sentence)
            found = [n for n in found if not any(t.start <= n.start < t.end or n.start <= t.start < n.end for t in titles)]
            self.tentative -= {p for t in titles for p in range(t.start, t.end)}
            names[id(sentence)] = _list_typed(sorted(found + titles, key=lambda n: n.start), self.text)
        return names

    def _participant(self, run: list[Token], sentence: list[Token], index: int) -> bool:
        """Return whether a name is the first name of someone speaking in the conversation, or its short form, or a
        name the conversation addresses someone by, unless a verb follows it ("Hey Jon!" earlier: "Sorry about your
        job Jon", but "Sam said Ada is back")."""
        word = run[0].lower
        addressed = word in self.addressed and _verb_follows(sentence, index + 1) is None
        return len(run) == 1 and (addressed or any(name == word or (len(word) >= 3 and name.startswith(word))
                                                   for name in self.participants))

    def _quoted_titles(self, sentence: list[Token]) -> list[Name]:
        """Return the titles a sentence quotes, each one name of a thing, its words no names of their own.

        A quote is a title when its words are in title case; a quoted nickname between two names is left to the
        name it belongs to ('Jocinda "Jo" Fowler').
        """
        titles = []
        for found in QUOTED_TITLE.finditer(self.text, sentence[0].start, sentence[-1].end):
            group = "double" if found["double"] else "single"
            title, start, end = found[group], found.start(group), found.end(group)
            words = re.findall(r"[\w'’&-]+", title)
            cased = all(w[0].isupper() or w[0].isdigit() or w.lower() in english.TITLE_SMALL_WORDS | {"and", "or"}
                        for w in words)
            nickname = re.search(r"\b[A-Z][\w'’-]* $", self.text[max(0, found.start() - 30):found.start()]) \
                and re.match(r" [A-Z]", self.text[found.end():found.end() + 2])
            if words and cased and len(words) <= TITLE_WORDS_MAX and not nickname:
                titles.append(Name(start, end, title, title, "OBJECT", STRONG_CUE, []))
        return titles

    def _classify(self, run: list[Token], sentence: list[Token], index: int) -> Name:
        """Return the name a run of capitalised words makes, with its type and how sure that type is."""
        words = [t.lower.strip(".") for t in run]
        start, end = run[0].start, run[-1].end
        surface = self.text[start:end]
        titled = run[0].kind == "title"
        name = self.text[run[1].start:end] if titled and len(run) > 1 else surface
        aliases = [surface] if titled else []
        previous = sentence[index - 1].lower if index else ""
        if titled or run[0].kind == "initial" or any(t.text in QUOTES for t in run):
            return Name(start, end, surface, name, "PERSON", STRONG_CUE, aliases)  # "Dr. Ng", 'Jocinda "Jo" Fowler'
        if _quoted(sentence, index, len(run)) or _rated(sentence, index + len(run)) or SHOWING.match(self.text[end:]) \
                or seen_at_cinema(self.text, end, previous, words[0]):
            return Name(start, end, surface, name, "OBJECT", STRONG_CUE, aliases)  # a title: "Becoming Nicole", "Moonfall (PG-13)"
        if venue_showing(self.text, end):
            return Name(start, end, surface, name, "LOCATION", STRONG_CUE, aliases)  # "Regal Davis has it playing at 1"
        if len(run) == 1 and run[0].kind == "initialism":
            return Name(start, end, surface, name, None, NO_CUE, aliases)  # typed once its expansion is known
        own = _own_type(words, previous)
        if own is not None:
            return Name(start, end, surface, name, own, STRONG_CUE, aliases + _venue_short_forms(run, self.text))
        if len(words) > 1 and words[0] in english.TITLE_WORDS:
            return Name(start, end, surface, name, "PERSON", STRONG_CUE, aliases)
        if extension := _place_or_thing_after(sentence[index + len(run):]):
            kind, last = extension
            full = self.text[start:last.end]
            # "LGBTQ" only says which support group, parade or conference it was, no other name of it; "the PixelHarbor
            # app" and "the Rotterdam office" keep their name as their short form
            return Name(start, last.end, full, full, kind, STRONG_CUE, [] if kind == "EVENT" else [name])
        if screening_of([t.lower for t in sentence[max(0, index - 2):index]]):
            return Name(start, end, surface, name, "OBJECT", RULE_CUE, aliases)  # "no showings of Belfast today"
        if KNOWN_PLACE.fits(words) or (_place_follows(sentence, index + len(run)) and not _after_interjections(sentence, index)):
            return Name(start, end, surface, name, KNOWN_PLACE.type, STRONG_CUE, aliases)  # "Austin, Texas": a city
        if KNOWN_ORGANIZATION.fits(words):
            return Name(start, end, surface, name, KNOWN_ORGANIZATION.type, STRONG_CUE, aliases)
        numbered = any(c.isdigit() for w in words[1:] for c in w) or (
            len(words) > 1 and ROMAN_NUMERAL.fullmatch(words[-1]) is not None and not given_name(words[0]))
        if numbered and not (index and sentence[index - 1].lower in ("at", "in")):
            return Name(start, end, surface, name, "OBJECT", RULE_CUE, aliases)  # a model: "Falcon 3", not "at AMC Lakeline 9"
        if len(run) == 1 and _is_identifier(name):
            parts = re.split(r"[_-]", name.lower())
            kind = "ORGANIZATION" if parts[-1] in english.ORGANIZATION_HEADS else "OBJECT"
            return Name(start, end, surface, name, kind, WEAK_CUE, aliases)
        if _title_words(run):
            return Name(start, end, surface, name, "OBJECT", RULE_CUE, aliases)  # "Last Night in Soho"
        return self._typed_by_context(run, sentence, index, Name(start, end, surface, name, "PERSON", NO_CUE, aliases))

    def _typed_by_context(self, run: list[Token], sentence: list[Token], index: int, default: Name) -> Name:
        """Return a name typed by the words around it, or `default` (someone, with no cue) when none types it."""
        name = default.name
        if not _after_interjections(sentence, index) and (kind := kind_type(sentence, index, len(run))):
            return default._replace(type=kind, cue=RULE_CUE)  # "Woodhaven, a small town", "my colleague Rob"
        before = [t.lower for t in sentence[max(0, index - 4):index] if t.lower not in ("the", "a", "an")]
        context = next((cue for cue in PREPOSITION_CUES if before and cue.fits(before)), None)
        if context is not None and context.type == "LOCATION" and len(run) == 1 and given_name(name) and not place_known(name):
            return default._replace(cue=WEAK_CUE)  # "a card from Sarah": no place is called so
        if context is not None:
            return default._replace(type=context.type, cue=context.cue)
        if index > 0 and sentence[index - 1].lower in THING_DETERMINERS and sentence[index - 1].text.islower():
            return default._replace(type="OBJECT", cue=WEAK_CUE)
        if len(run) == 1 and len(name) > 1 and name.isupper():
            return default._replace(type="ORGANIZATION", cue=WEAK_CUE)
        if place_named(name):  # a guess from a list, not the sentence: "BUFFALO" after "BUFFALO Corp" stays the company
            return default._replace(type="LOCATION")
        if len(run) == 1 and plural_group(name):
            return default._replace(type="ORGANIZATION")  # "the Jets", "Sharks": a group; a guess all the same
        if _done_by_someone(sentence, index, len(run)):
            return default._replace(cue=WEAK_CUE)  # "Ruairi assigned", "ask Lowri Pryce to"
        return default

    def _noun_phrases(self, sentence: list[Token], names: list[Name]) -> list[Name]:
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
            found.append(Name(start, token.end, self.text[start:token.end], name, "OBJECT" if is_thing else "EVENT", RULE_CUE, []))
        return found


def person_by_name(name: str) -> bool:
    """Return whether a name is someone's by its own words: a common first name leads it ("Sarah", "John Zhang",
    "Steve-O"), initials lead it ("J.K. Rowling") or it is a common surname alone ("Williams")."""
    words = name.split()
    return (given_name(re.split(r"[-‐]", words[0])[0]) or (len(words) > 1 and INITIALS.fullmatch(words[0]) is not None)
            or (len(words) == 1 and surname(words[0])))


def _is_identifier(word: str) -> bool:
    """Return whether a word is written like a code name: Service_Checkout, AuthModule, BUG-3310."""
    camel = re.search(r"[a-z][A-Z]", word) is not None and not re.match(r"(?:Mc|Mac)[A-Z]", word)
    return "_" in word or camel or any(c.isdigit() for c in word)


def _verb_follows(sentence: list[Token], index: int) -> str | None:
    """Return the verb that comes next, adverbs skipped: "Wendell no longer lives" but not "Readers rarely notice"."""
    while index < len(sentence) and (sentence[index].lower in english.VERB_ADVERBS or sentence[index].lower.endswith("ly")):
        index += 1
    if index + 1 < len(sentence) and sentence[index].text in "'’" and sentence[index + 1].lower in CONTRACTIONS:
        return "is"
    return sentence[index].lower if index < len(sentence) and sentence[index].lower in english.CLAUSE_VERBS else None


def _done_by_someone(sentence: list[Token], index: int, length: int) -> bool:
    """Return whether the name at `index` does or undergoes what only someone does: "Ruairi assigned", "ask Lowri"."""
    after = index + length
    while after < len(sentence) and (sentence[after].lower in english.VERB_ADVERBS or sentence[after].lower.endswith("ly")):
        after += 1
    return (after < len(sentence) and sentence[after].lower in english.PERSON_VERBS) or (
        index > 0 and sentence[index - 1].lower in english.PERSON_OBJECT_VERBS)


def _vocative(sentence: list[Token], index: int, length: int) -> bool:
    """Return whether the name at `index` is only a form of address: after a greeting or a comma, before a pause."""
    after = sentence[index + length] if index + length < len(sentence) else None
    if length > 1 or (after is not None and not (after.kind == "punct" and after.text in VOCATIVE_AFTER)):
        return False
    before = sentence[:index]
    if _after_interjections(sentence, index):
        return True  # "Yeah, Caroline, my family's been great": spoken to, whatever follows
    if (after is None or after.text in "!?.") and before and before[0].lower in english.GREETINGS | {"sure"} \
            and before[-1].lower not in OBJECT_LEADS and not before[-1].lower.endswith("ed"):
        return True  # "Thanks for the invite Joanna!", "Sure thing Nate!": the close of a sentence of thanks
    following = sentence[index + 2] if index + 2 < len(sentence) else None
    if following is not None and following.lower in APPOSITION_LEADS:
        return False  # "Ravi, the chief engineer, ...": an apposition names someone
    if len(before) > 1 and before[-1].text == "," and before[-2].capitalised and before[-2].lower not in english.INTERJECTIONS \
            and after is not None and after.text == "," and index + 2 < len(sentence) and sentence[index + 2].capitalised:
        return False  # "Red Notice, Annaatthe, Shang-Chi": one of a list of names
    if not before:
        return True
    return (before[-1].text == "," or before[-1].lower in english.GREETINGS | english.PRAISE_BEFORE_ADDRESS
            or [t.lower for t in before[-2:]] == ["thank", "you"])


def _after_interjections(sentence: list[Token], index: int) -> bool:
    """Return whether only interjections and commas come before the word at `index`: "Wow, Calvin, ..."."""
    return index > 0 and all(t.lower in english.INTERJECTIONS or t.text == "," for t in sentence[:index])


def _own_type(words: list[str], previous: str) -> str | None:
    """Return the type a name's own words give it ("Orca Holdings", "AMC Metropark Square 10"), if any.

    A first name and a place's last word after a word of meeting is someone: "touring with Frank Ocean".
    """
    bare = words[:-1] if len(words) > 2 and words[-1].isdigit() else words  # a screen's number after the cinema
    own = next((cue.type for cue in WORD_CUES if cue.fits(bare)), None)
    if own == "LOCATION" and previous in PERSON_LEADS and len(words) == 2 and given_name(words[0]) \
            and not place_known(words[0]):
        return None
    return own


def _place_follows(sentence: list[Token], index: int) -> bool:
    """Return whether a comma and a known place follow: "Austin, Texas", "Davis, California"."""
    if index + 1 >= len(sentence) or sentence[index].text != ",":
        return False
    end = index + 1
    while end < len(sentence) and sentence[end].capitalised:
        end += 1
    return end > index + 1 and _known_place([t.lower for t in sentence[index + 1:end]])


def _known_place(words: list[str]) -> bool:
    return KNOWN_PLACE.fits(words) or place_named(" ".join(words))


def _paired(sentence: list[Token], index: int) -> bool:
    """Return whether a sentence opener is paired with a name ("Luna and Oliver!") or a place ("Austin, Texas")."""
    joined = (index + 1 < len(sentence) and sentence[index].lower == "and" and _is_name_word(sentence[index + 1], False)
              and sentence[index + 1].lower not in english.FUNCTION_WORDS)
    return joined or _place_follows(sentence, index)


def _after_indefinite(sentence: list[Token], index: int) -> bool:
    """Return whether "a" or "an" comes just before the word at `index`, two lowercase modifiers allowed."""
    while index > 1 and sentence[index - 1].text == "/" and sentence[index - 2].capitalised:
        index -= 2  # "a Comedy/Pranks": alternatives of one kind
    for back in range(index - 1, max(index - 4, -1), -1):
        if sentence[back].lower in ("a", "an"):
            return True
        if not _is_modifier(sentence[back]):
            return False
    return False


def _quoted(sentence: list[Token], index: int, length: int) -> bool:
    """Return whether a run stands in quotes, as titles of books, songs and shows do."""
    after = sentence[index + length] if index + length < len(sentence) else None
    return index > 0 and sentence[index - 1].text in QUOTES and (after is None or after.text in QUOTES | {".", ",", "!", "?"})


def _rated(sentence: list[Token], index: int) -> bool:
    """Return whether a film rating in brackets follows: "Moonfall (PG-13)"."""
    return (index + 2 < len(sentence) and sentence[index].text == "(" and sentence[index + 1].lower in english.MEDIA_RATINGS
            and sentence[index + 2].text == ")")


def _opens(sentence: list[Token], index: int) -> bool:
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


def _is_name_word(token: Token, first: bool) -> bool:
    if not token.capitalised or token.lower in NEVER_NAMES or (token.kind == "word" and len(token.text) == 1 and token.text != "I"):
        return False
    if first and (token.lower in english.INTERJECTIONS or token.lower in english.IMPLIED_SUBJECT_VERBS):
        return False
    return not (token.lower in english.FUNCTION_WORDS and (first or token.lower == "i"))


def _capitalised_runs(sentence: list[Token]) -> list[tuple[list[Token], int]]:
    """Return maximal runs of capitalised words (with numbers and connectors inside) and their index.

    A title ("No Time to Die", "Spider-Man: No Way Home", "The King's Man (R)") also takes small lowercase
    words, a colon before its subtitle and possessives; "Clifford the Big Red Dog" takes its epithet.
    """
    runs, i = [], 0
    while i < len(sentence):
        token = sentence[i]
        titled = _rated_ahead(sentence, i) or (
            token.kind == "word" and token.text[0].isupper() and token.lower in english.TITLE_OPENERS
            and _name_at(sentence, i + 1) and (not _opens(sentence, i) or _title_cased(sentence, i + 1)))
        if not titled and (not _is_name_word(token, _opens(sentence, i)) or token.lower in english.FUNCTION_WORDS):
            i += 1
            continue
        j = _run_end(sentence, i, titled)
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


def _name_at(sentence: list[Token], k: int) -> bool:
    return k < len(sentence) and _is_name_word(sentence[k], False)


def _run_end(sentence: list[Token], i: int, titled: bool) -> int:
    """Return where the run of capitalised words that starts at `i` ends (exclusive)."""
    j = i + 1
    while j < len(sentence):
        token = sentence[j]
        if _is_name_word(token, False) or token.text.isdigit():
            titled = titled or token.lower in english.FUNCTION_WORDS
            j += 1
        elif (token.lower == "and" and j + 1 < len(sentence) and sentence[j + 1].lower in english.SCREEN_FORMATS) or (
                token.text == "@" and _name_at(sentence, j + 1)):
            j += 2  # "Cinemark 17 and XD", "Regal Arbor @ Great Hills": one venue
        elif token.lower in english.NAME_CONNECTORS and _name_at(sentence, j + 1) \
                and sentence[j + 1].lower not in english.FUNCTION_WORDS:
            j += 2
        elif token.text == ":" and _name_at(sentence, j + 1) and (not _opens(sentence, i) or _name_at(sentence, j + 2)):
            titled, j = True, j + 1  # a subtitle, unless "Note: Sam is late" opens a sentence
        elif titled and token.text.islower() and token.lower in english.TITLE_SMALL_WORDS and _name_at(sentence, j + 1):
            j += 1
        elif titled and token.text in "'’" and (_name_at(sentence, j + 1) or (
                sentence[j + 1:j + 2] and sentence[j + 1].lower == "s" and _name_at(sentence, j + 2))):
            j += 1 if _name_at(sentence, j + 1) else 2  # "World Heroes' Mission", "The King's Man"
        elif token.text in QUOTES and _name_at(sentence, j + 1) and j + 3 < len(sentence) \
                and sentence[j + 2].text in QUOTES and _name_at(sentence, j + 3):
            j += 4  # a nickname between a first and a last name: 'Jocinda "Jo" Fowler'
        elif token.lower == "the" and token.text.islower() and j == i + 1 and _name_at(sentence, j + 1) \
                and sentence[j + 1].lower not in english.FUNCTION_WORDS:
            titled, j = True, j + 1  # an epithet: "Clifford the Big Red Dog"
        else:
            break
    return j


def _list_typed(names: list[Name], text: str) -> list[Name]:
    """Give the names of a list ("Eternals, Red Notice, No Time to Die and Dune") the type its typed members agree on.

    Only names with no cue of their own take it, and only from at least two members typed by their own words or a rule.
    """
    groups: list[list[Name]] = []
    for name in names:
        if groups and LIST_GAP.fullmatch(text[groups[-1][-1].end:name.start]):
            groups[-1].append(name)
        else:
            groups.append([name])
    typed = []
    for group in groups:
        firm = [n.type for n in group if n.cue >= RULE_CUE]
        kind = firm[0] if len(firm) >= LIST_TYPED_MEMBERS and len(set(firm)) == 1 else _pair_type(group)
        typed.extend(n._replace(type=kind, cue=WEAK_CUE) if kind and n.cue == NO_CUE else n for n in group)
    return typed


def _pair_type(pair: list[Name]) -> str | None:
    """Return the type of the one member of a pair typed by its own words or known by name, for the other when no
    first name leads it ("Nike and Gatorade", "Davis Varsity Theatre and Regal Davis"; not "Nike and Sarah")."""
    if len(pair) != 2 or sum(n.cue == STRONG_CUE for n in pair) != 1:
        return None
    other = next(n for n in pair if n.cue != STRONG_CUE)
    return None if given_name(other.name.split()[0]) else next(n.type for n in pair if n.cue == STRONG_CUE)


def _title_cased(sentence: list[Token], index: int) -> bool:
    """Return whether the capitalised words from `index` on include a capitalised small word: "Time To Die"."""
    while index < len(sentence) and _is_name_word(sentence[index], False):
        if sentence[index].lower in english.FUNCTION_WORDS:
            return True
        index += 1
    return False


def _title_words(run: list[Token]) -> bool:
    """Return whether a run reads as a title: a subtitle, or small words inside it ("No Time to Die")."""
    return (run[0].lower in english.TITLE_OPENERS - {"the"} or any(
        t.text == ":" or (t.lower in english.FUNCTION_WORDS and t.lower not in english.NAME_CONNECTORS) for t in run[1:]))


def _rated_ahead(sentence: list[Token], index: int) -> bool:
    """Return whether a title in title case that starts at `index` is closed by a film rating: "Pretty in Pink (PG-13)"."""
    if not (sentence[index].kind == "word" and sentence[index].text[0].isupper()):
        return False
    k = index
    while k < len(sentence) and (sentence[k].capitalised or sentence[k].text.isdigit() or sentence[k].text in ":'’"
                                 or sentence[k].lower in english.TITLE_SMALL_WORDS or sentence[k].lower == "s"):
        k += 1
    return k > index and _rated(sentence, k)


def _kind_of_food(run: list[Token]) -> bool:
    words = {t.lower for t in run}
    return words <= english.FOOD_AND_DRINK | english.FOOD_MODIFIERS and bool(words & english.FOOD_AND_DRINK)


def _venue_short_forms(run: list[Token], text: str) -> list[str]:
    """Return a venue's name before its screen formats or its "@" ("Cinemark 17" of "Cinemark 17 and XD")."""
    cut = next((i for i, t in enumerate(run) if i and (t.lower in english.SCREEN_FORMATS or t.text == "@")), None)
    if cut is None:
        return []
    last = cut - 2 if run[cut - 1].lower == "and" else cut - 1
    return [text[run[0].start:run[last].end]] if last >= 0 else []


def _place_or_thing_after(after: list[Token]) -> tuple[str, Token] | None:
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


def _is_modifier(token: Token) -> bool:
    return (
        token.kind == "word" and token.text.isalpha() and token.text.islower()
        and token.lower not in english.FUNCTION_WORDS and token.lower not in english.DETERMINERS
        and (not token.lower.endswith("ly") or token.lower in english.LY_ADJECTIVES)
    )

