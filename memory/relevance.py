"""One relevance scale for every kind of memory a context can hand the model.

An item's relevance to a question is how close it is in meaning (the cosine of the two vectors, none
below zero) plus LEXICAL_WEIGHT times the share of the question's words it holds (stemmed, so
"painted" finds "painting"), over 1 + LEXICAL_WEIGHT: a number in [0, 1] that means the same for a
message, a fact, a preference, an entity, a trace or another app's item, so a context can take the
best of all of them until its budget is spent. The weights were chosen by rotation over LoCoMo's
conversations (tuned on eight, measured on the other two; docs/benchmarks-log.md).
"""

import os
import re
from dataclasses import dataclass, field

import numpy as np

from portal.stemming import english_stem

LEXICAL_WEIGHT = 0.5
# A stem matches a word that starts with it and goes on for at most this many letters ("adopt" finds
# "adoption" and "adopted"): the stemmer's own suffixes, without stemming every candidate's every word.
SUFFIX_LETTERS = 4
# A word is letters and digits: "Service_Checkout" holds "service" and "checkout".
WORD = re.compile(r"[^\W_]+")
# Words a question is made of that say nothing about which memory answers it.
QUESTION_WORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these "
    "they this to was will with what when where who whom which why how did does do has have had been being "
    "were would could should may might can you your his her she him its our from about i me my we us he "
    "any some ever much many also get got".split())


@dataclass(frozen=True)
class Question:
    """What a question asks for: the stems of its words, and which of them each word read so far holds."""

    stems: frozenset[str]
    _held: dict[str, str | None] = field(default_factory=dict, compare=False, repr=False)

    def words_share(self, text: str) -> float:
        """Return the share of the question's words that `text` holds, in [0, 1]."""
        if not self.stems or not text:
            return 0.0
        words = set(WORD.findall(text.lower()))
        for word in words - self._held.keys():
            self._held[word] = self._stem_held(word)
        return len({self._held[word] for word in words} - {None}) / len(self.stems)

    def _stem_held(self, word: str) -> str | None:
        """Return the shortest of the stems that `word` is, followed by at most SUFFIX_LETTERS letters, if any."""
        return next((word[:end] for end in range(max(1, len(word) - SUFFIX_LETTERS), len(word) + 1)
                     if word[:end] in self.stems), None)


def question_read(text: str) -> Question:
    """Return the question's words, without the ones every question is made of, stemmed."""
    words = {w for w in (w.lower() for w in WORD.findall(text)) if w not in QUESTION_WORDS}
    # What a word shares with its stem ("strategy" and "strategi": "strateg") is what its forms begin with.
    return Question(stems=frozenset(os.path.commonprefix([word, stem]) or word
                                    for word, stem in zip(words, map(english_stem, words))))


def relevance(*, question: Question, similarity: float | None, text: str) -> dict:
    """Return an item's relevance and what it is made of: `meaning` (cosine, from Neo4j's [0, 1] similarity)
    and `words` (the share of the question's words the item's text holds). An item with no vector yet (a
    message the worker has not embedded) is judged by its words alone."""
    words = question.words_share(text)
    if similarity is None:
        return {"score": words, "meaning": None, "words": round(words, 4)}
    meaning = min(1.0, max(0.0, 2 * similarity - 1))
    return {"score": (meaning + LEXICAL_WEIGHT * words) / (1 + LEXICAL_WEIGHT), "meaning": round(meaning, 4),
            "words": round(words, 4)}


def relevance_scores(*, question: Question, similarities: np.ndarray, texts: list[str]) -> np.ndarray:
    """Return the relevance of many items at once, each as `relevance` scores it (the scores alone)."""
    meaning = np.clip(2 * similarities - 1, 0.0, 1.0)
    words = np.fromiter((question.words_share(text) for text in texts), dtype=np.float64, count=len(texts))
    return (meaning + LEXICAL_WEIGHT * words) / (1 + LEXICAL_WEIGHT)
