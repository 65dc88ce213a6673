"""Types a name takes from the words beside it: a noun that says what it is, a cinema's showings, a plural."""

import re

from memory.extraction import english
from memory.extraction.gazetteer import given_name, surname
from memory.extraction.offline.tokens import Token

# Words that open the noun phrase of a kind ("a small town", "my colleague", "the band"); "that painting" after
# a name and a comma is what the person spoken to made ("Wow Mel, that painting's amazing").
KIND_LEADS = {"a", "an", "the", "my", "our", "his", "her", "their"}
NAMING_VERBS = {"named", "called"}
# Lowercase words allowed between the lead and its noun ("a small coastal town").
KIND_MODIFIERS = 2
# What may follow the noun of an apposition ("Woodhaven, a small town in the Midwest"); a verb there makes the
# comma a vocative's ("Calvin, the game was great").
APPOSITION_ENDS = {"in", "of", "from", "near", "on", "by", "with", "who", "which", "that", "where", "and"}
# "Regal Alamo Quarry has it playing at 1:15 PM": a cinema, whatever its name looks like.
VENUE_SHOWING = re.compile(r"\s+(?:has|have)\s+it\s+(?:playing|showing)\b")
# A plural of one word ("the Jets", "Sharks", "the Beatles") is a group, never one person; names that only end in
# an "s" ("Mateus", "Chris", "Lucas", "Carlos"), first names and surnames ("Williams") are left to be people.
PLURAL = re.compile(r"[A-Z][a-z]+(?:[^aeiousy]|e)s")
# "see Belfast at a nearby theater": a film seen at a cinema (a first name there is someone met at one).
SEEN_AT_CINEMA = re.compile(r"\s+at\s+(?:a|the)\s+(?:nearby\s+|local\s+)?(?:theater|theatre|cinema)s?\b")
SEEING_VERBS = {"see", "watch"}
# Nouns of a film's showings (not "tickets": "tickets to Paris" are a flight's).
SHOWING_NOUNS = english.SCREENING_NOUNS - {"ticket", "tickets"}


def kind_type(sentence: list[Token], index: int, length: int) -> str | None:
    """Return the type a noun beside a name gives it: after it and a comma ("Woodhaven, a small town in the
    Midwest"), or just before it ("my colleague Rob", "a cat named Bailey", "the band Coldplay")."""
    return _kind_after(sentence[index + length:]) or _kind_before(sentence[:index])


def _kind_after(after: list[Token]) -> str | None:
    if len(after) < 3 or after[0].text != "," or after[1].lower not in KIND_LEADS:
        return None
    for k in range(2, min(len(after), 3 + KIND_MODIFIERS)):
        token = after[k]
        if token.text.islower() and token.lower in english.KIND_NOUNS:
            following = after[k + 1] if k + 1 < len(after) else None
            ends = following is None or following.lower in APPOSITION_ENDS or (
                following.kind == "punct" and following.text not in "'’")
            return english.KIND_NOUNS[token.lower] if ends else None
        if not (token.kind == "word" and token.text.islower()):
            return None
    return None


def _kind_before(before: list[Token]) -> str | None:
    named = bool(before) and before[-1].lower in NAMING_VERBS
    if named:
        before = before[:-1]
    if not before or not before[-1].text.islower() or before[-1].lower not in english.KIND_NOUNS:
        return None
    kind = english.KIND_NOUNS[before[-1].lower]
    if named:
        return kind  # "someone named David", "a cat called Bailey"
    for token in reversed(before[max(0, len(before) - 2 - KIND_MODIFIERS):-1]):
        if token.lower in KIND_LEADS:
            return kind
        if not (token.kind == "word" and token.text.islower()):
            return None
    return None


def venue_showing(text: str, end: int) -> bool:
    """Return whether the words after a name say it shows a film: "Regal Alamo Quarry has it playing at 1:15 PM"."""
    return VENUE_SHOWING.match(text, end) is not None


def plural_group(name: str) -> bool:
    """Return whether a one-word name is a plural that names a group: "Jets", "Sharks"; not "Chris", "Williams"."""
    return PLURAL.fullmatch(name) is not None and not given_name(name) and not surname(name)


def head_before_of(words: list[str], heads: frozenset) -> bool:
    """Return whether a head word comes just before a name's "of": "the Cliffs of Moher", "University of Leeds"."""
    return "of" in words[1:-1] and words[words.index("of", 1) - 1] in heads


def screening_of(before: list[str]) -> bool:
    """Return whether a name follows the showings of a film ("no showings of Belfast today", "showtimes for
    Dune"), which a place's name in the list of places does not outweigh."""
    return len(before) == 2 and before[0] in SHOWING_NOUNS and before[1] in ("of", "for")


def seen_at_cinema(text: str, end: int, verb: str, first_word: str) -> bool:
    """Return whether a name is a film seen at a cinema: "I would like to see Belfast at a nearby theater"."""
    return verb in SEEING_VERBS and SEEN_AT_CINEMA.match(text, end) is not None and not given_name(first_word)
