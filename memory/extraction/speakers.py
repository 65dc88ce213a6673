"""Speaker labels: clients that replay a chat between people often send each turn as "Name: text"."""

import re
from collections.abc import Sequence
from typing import NamedTuple

from memory.extraction import english
from memory.extraction.gazetteer import given_name, place_known

# One to three capitalised words, a colon and a blank, then the turn itself.
LABELLED = re.compile(r"\s*(?P<name>[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2}):\s+(?P<text>\S.*)", re.DOTALL)
# One lowercase word, as chat exports write people's handles ("elise: hi"): a name only on evidence (below).
LOWERCASE_LABELLED = re.compile(r"\s*(?P<name>[a-z][a-z'’-]*):\s+(?P<text>\S.*)", re.DOTALL)
# Words that open a note, not a name ("Note: ...", "Update: ...", "Monday: gym").
LABEL_WORDS = frozenset(
    "note notes update updates reminder question questions answer answers summary re subject warning error "
    "todo ps tip tips step edit fyi q a result results status title example important caution info source "
    "quote translation name date time location address email phone user assistant system tool agent bot ai "
    "human me you topic task goal problem solution reason context news breaking spoiler hint fact facts "
    "pros cons idea ideas hello hi hey thanks ok okay yes no well wow btw lol so also and but then now today "
    "tomorrow yesterday first second third finally warning p.s booked noted done added confirmed sent saved "
    "updated scheduled cancelled canceled ordered paid reserved got great sure".split())
# Words a lowercase label is read as before it is read as a name, though the Census lists them as first names too
# ("will: it's done", "so: what now").
LOWERCASE_WORDS = (LABEL_WORDS | english.WEEKDAYS | english.MONTHS.keys() | english.FUNCTION_WORDS
                   | english.CLAUSE_VERBS | english.INTERJECTIONS | english.GREETINGS | english.CHAT_ABBREVIATIONS)


def speaker_split(text: str) -> tuple[str | None, str]:
    """Return the speaker a turn is labelled with ("Caroline: hi" -> "Caroline") and its text without the label.

    A label is a name: one to three capitalised words, none of them a note's heading, a weekday or a month; or one
    lowercase word that is a common first name (the Census's list) and no place nor ordinary word ("elise: hi" ->
    "Elise", written as a name is; "note: ...", "re: ...", "will: ..." are what was said). Text without one comes
    back whole, with no speaker.
    """
    lowercase = LOWERCASE_LABELLED.fullmatch(text)
    if lowercase:
        name = lowercase["name"]
        if name in LOWERCASE_WORDS or not given_name(name) or place_known(name):
            return None, text
        return name.capitalize(), lowercase["text"]
    found = LABELLED.fullmatch(text)
    if not found:
        return None, text
    words = [w.lower().strip(".") for w in found["name"].split()]
    if any(w in LABEL_WORDS or w in english.WEEKDAYS or w in english.MONTHS for w in words):
        return None, text
    return found["name"], found["text"]


class Said(NamedTuple):
    """What a message says without its speaker label, who said it, and how long the label was."""

    speaker: str | None
    text: str
    label_length: int


def labels_strip(text: str, earlier: Sequence[str]) -> tuple[Said, list[Said]]:
    """Return what a message and its earlier turns say without their speaker labels.

    Labels are read only in a conversation that uses them: with earlier turns, one of them must be labelled
    too, so that a message opening with "Spider-Man: No Way Home is playing at" keeps its title.
    """
    turns = [text, *earlier]
    split = [speaker_split(turn) for turn in turns]
    if earlier and not any(speaker for speaker, _ in split[1:]):
        split = [(None, turn) for turn in turns]
    said = [Said(speaker, rest, len(turn) - len(rest)) for turn, (speaker, rest) in zip(turns, split)]
    return said[0], said[1:]
