"""Tokens, sentences and clauses of a text, as the offline extractor reads them."""

import re
from dataclasses import dataclass

from memory.extraction import english

TOKEN = re.compile(
    r"(?P<initialism>(?:[A-Z]\.){2,})"
    r"|(?P<title>\b(?:" + "|".join(t.capitalize() for t in english.TITLES) + r")\.)"
    r"|(?P<initial>\b(?!I\.)[A-Z]\.(?=\s+[A-Z]))"
    # A time's "PM" glued to the next word ("9:15 PMAlamo"); a decimal is one word, its point no sentence's end ("24.5p").
    r"|(?P<word>\b[AP]M(?=[A-Z][a-z])|\d+(?:\.\d+)+\w*|\w+(?:[-&]\w+)*\+?)"
    r"|(?P<punct>[^\w\s])"
)

# "... and I would like ...": a new subject after a conjunction starts a new clause.
SUBJECT_PRONOUNS = {"i", "we", "he", "she", "they"}
CLAUSE_BREAKERS = {"and", "but", "while", "whereas", "so", "although", "though"}


@dataclass
class Token:
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


def sentences(tokens: list[Token], text: str) -> list[list[Token]]:
    """Split tokens at sentence ends and at line breaks: a turn or a line of chat ends its sentence."""
    found, current = [], []
    for token in tokens:
        if current and "\n" in text[current[-1].end:token.start]:
            found.append(current)
            current = []
        current.append(token)
        if token.kind == "punct" and token.text in ".!?":
            found.append(current)
            current = []
    if current:
        found.append(current)
    return found


def clauses(sentence: list[Token]) -> list[list[Token]]:
    found, current = [], []
    for i, token in enumerate(sentence):
        following = sentence[i + 1].lower if i + 1 < len(sentence) else ""
        if token.text == ";" or (token.text == "," and following in CLAUSE_BREAKERS) or (
                token.lower in CLAUSE_BREAKERS and following in SUBJECT_PRONOUNS):
            if current:
                found.append(current)
            current = []
            continue
        current.append(token)
    if current:
        found.append(current)
    return found

