"""Normal forms of names, shared by the extractor and by entity resolution."""

import re

from memory.extraction import english


def name_tokens(name: str) -> list[str]:
    """Return the words of a name, lower-cased, without titles and dots."""
    words = [w.strip(".").lower() for w in re.findall(r"[\w.&-]+", name)]
    return [w for w in words if w and w not in english.TITLES]


def name_core(name: str) -> str:
    """Return a name without titles, a leading article or a trailing company suffix ("ACME Corp." -> "acme")."""
    words = name_tokens(name)
    if len(words) > 1 and words[0] == "the":
        words = words[1:]
    while len(words) > 1 and words[-1] in english.CORPORATE_SUFFIXES:
        words = words[:-1]
    return " ".join(words)


def initials(name: str) -> str:
    """Return the first letters of a name's words, connectors left out ("Bank of Leeds" -> "bl")."""
    return "".join(w[0] for w in name_tokens(name) if w not in english.NAME_CONNECTORS and w != "the")


def singular(word: str) -> str:
    word = word.lower()
    if word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word
