"""Where a name's type comes from in chat (issue 20, second round): development turns of Taskmaster and LoCoMo."""

import pytest

from memory.extraction.offline import OfflineExtractor


def types(text):
    return {e.name: e.type for e in OfflineExtractor().extract(text=text).entities}


# A name's own words, the words beside it, lists of places and first names, a name it is paired with.
@pytest.mark.parametrize(("text", "name", "type_"), [
    ("Where is Eternals playing?", "Eternals", "OBJECT"),
    ("Is Lal Singh Chaddha out yet?", "Lal Singh Chaddha", "OBJECT"),
    ("Redeeming Love has a run time of 2h 14m.", "Redeeming Love", "OBJECT"),
    ("No Time To Die is playing at AMC Lakeline 9.", "AMC Lakeline 9", "LOCATION"),
    ("Instagram and TikTok can help you reach a younger crowd.", "Instagram", "ORGANIZATION"),
    ("She sold it on Etsy last year.", "Etsy", "ORGANIZATION"),
    ("We loved Guadalajara, the food was amazing.", "Guadalajara", "LOCATION"),
    ("The view over Nuuk was worth the cold.", "Nuuk", "LOCATION"),
    ("I moved to Tucson, Arizona in May.", "Tucson", "LOCATION"),
    ("Victoria said she would come along.", "Victoria", "PERSON"),
    ("I got a lovely card from Sarah yesterday.", "Sarah", "PERSON"),
    ("I grew up in Jackson before college.", "Jackson", "LOCATION"),
    ("I played Civilization VI all weekend.", "Civilization VI", "OBJECT"),
    ("Elizabeth II was queen for seventy years.", "Elizabeth II", "PERSON"),
    ("I went to Woodhaven, a small town in the Midwest.", "Woodhaven", "LOCATION"),
    ("My colleague Rob invited me to a yoga class.", "Rob", "PERSON"),
    ("I had a long chat with someone named Idris.", "Idris", "PERSON"),
    ("We finally watched the movie Zootopia.", "Zootopia", "OBJECT"),
    ("Started touring with Frank Ocean and it's been amazing.", "Frank Ocean", "PERSON"),
    ("We walked down to Shibuya Crossing at night.", "Shibuya Crossing", "LOCATION"),
    ("Regal Alamo Quarry has it playing at 1:15 PM.", "Regal Alamo Quarry", "LOCATION"),
    ("I found two theaters showing it: AMC Metropark Square 10.", "AMC Metropark Square 10", "LOCATION"),
    ("The fire between the warring Jets and Sharks never ends.", "Sharks", "ORGANIZATION"),
    ("I want to visit The Cliffs of Moher.", "The Cliffs of Moher", "LOCATION"),
    ("We sailed across the Gulf of Mexico.", "Gulf of Mexico", "LOCATION"),
    ("I signed deals with Nike and Gatorade.", "Gatorade", "ORGANIZATION"),
    ("Davis Varsity Theatre and Regal Davis", "Regal Davis", "LOCATION"),
    ("I'm sorry, but there are no showings of Belfast today.", "Belfast", "OBJECT"),
    ("I would like to see Belfast at a nearby theater.", "Belfast", "OBJECT"),
])
def test_a_names_type_comes_from_what_is_said_of_it(text, name, type_):
    assert types(text)[name] == type_


def test_an_event_of_a_kind_is_no_entity():
    assert types("Yoga is great, and joining a new class might be a good option.") == {}
    assert types("The annual safety review ran long.") == {"annual safety review": "EVENT"}


@pytest.mark.parametrize("text", [
    "Thanks for the invite Joanna!", "Sure thing Nate! See you later!", "Thanks James! Bon Voyage!",
    "Cool, but my favorite thing is Hawaiian pizza.", "Yeah, PT for my knee is on the cards.",
])
def test_forms_of_address_wishes_and_kinds_are_no_names(text):
    assert types(text) == {}


def test_what_stays_a_name():
    assert types("Besides Italy, I was also in Turkey.") == {"Italy": "LOCATION", "Turkey": "LOCATION"}
    assert types("Wow Mel, that painting's amazing!") == {}
    assert types("Thanks for the card from Sarah!") == {"Sarah": "PERSON"}
    assert types("Mateus uses Slack every day.")["Mateus"] == "UNTYPED"  # nothing says what Mateus is
    assert types("Mateus said Slack is down.")["Mateus"] == "PERSON"
    assert types("Ask Lowri Pryce to review the draft.")["Lowri Pryce"] == "PERSON"
    assert types("Wow, Calvin, Tokyo looks incredible!") == {"Tokyo": "LOCATION"}
    assert types("Nike and Sarah came along.")["Sarah"] == "PERSON"  # a first name keeps its person
    assert types("I will see Sarah at the cinema.") == {"Sarah": "PERSON"}
    assert types("We flew to Belfast and then to Paris.") == {"Belfast": "LOCATION", "Paris": "LOCATION"}
