"""English stems, for whichever thread asks: the context's relevance and extraction's preference topics use them."""

import functools
import threading

import snowballstemmer

_threads = threading.local()


def english_stemmer():
    """Return this thread's English stemmer: a snowball stemmer keeps the word it works on in itself, so the threads
    of one web worker (stemming questions side by side, or topics of corrections) must not share one (a shared one
    raised IndexError, or stemmed another request's word)."""
    if not hasattr(_threads, "stemmer"):
        _threads.stemmer = snowballstemmer.stemmer("english")
    return _threads.stemmer


@functools.lru_cache(maxsize=65_536)
def english_stem(word: str) -> str:
    """Return a word's English stem, cached: stemming is pure, and every question stems words seen before."""
    return english_stemmer().stemWord(word)
