import json
from datetime import date
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import override_settings
from neomodel import db

from memory.extraction import Turn, get_extractor
from memory.extraction.dates import stated_date
from memory.extraction.offline import OfflineExtractor
from memory.extraction.openai_extractor import OpenAIExtractor
from memory.extraction.rules import predicate_cardinality
from memory.ingest import extraction_from_explicit, message_extract
from tests.support.stack import ROOT
from tests.memory.extraction_heldout import CASES, FRESH_CASES, score

GOLD = ROOT / "data" / "poleo" / "poleo_gold.json"


def extract(text, **kwargs):
    return OfflineExtractor().extract(text=text, **kwargs)


def entity(result, name):
    return next(e for e in result.entities if name in e.surface_forms)


def triples(result):
    return {(r.source, r.type, r.target) for r in result.relations}


def facts(result):
    return {(f.subject, f.predicate, f.object) for f in result.facts}


def types(result):
    return {e.name: e.type for e in result.entities}


def test_typed_entities_with_offsets_and_aliases():
    text = "Dr. Lena Park chairs the Coastal Water Trust. Park Street runs past the Trust's Bristol depot."
    result = extract(text)
    lena = entity(result, "Lena Park")
    assert lena.type == "PERSON" and "Dr. Lena Park" in lena.aliases
    assert entity(result, "Coastal Water Trust").type == "ORGANIZATION"
    assert entity(result, "Park Street").type == "LOCATION"
    assert entity(result, "Bristol depot").type == "LOCATION"
    for found in result.entities:
        for mention in found.mentions:
            assert text[mention.start:mention.end] == mention.text
            assert 0 < mention.confidence <= 1


def test_short_forms_initialisms_and_nominals_join_their_entity():
    result = extract(
        "Olivia Grant joined Borealis Systems Inc in 2019. Olivia says BOREALIS SYSTEMS pays well. "
        "Friends call her O.G. at work. The company opened an office in Oslo."
    )
    olivia = entity(result, "Olivia Grant")
    assert {"Olivia", "O.G."} <= set(olivia.aliases)
    borealis = entity(result, "Borealis Systems Inc")
    assert "BOREALIS SYSTEMS" in borealis.aliases
    assert any(m.text == "The company" for m in borealis.mentions)
    assert [e.name for e in result.entities].count("Olivia Grant") == 1


def test_negation_never_yields_a_relation_or_fact():
    result = extract("Hugo Lind did not join Tern Analytics. Hugo never worked for Brightwater Logistics; he signed with Quay Freight Union.")
    assert triples(result) == {("Hugo Lind", "EMPLOYED_BY", "Quay Freight Union")}
    assert {(f.subject, f.predicate, f.object) for f in result.facts} == triples(result)


def test_speaker_facts_and_negated_first_person_statements():
    result = extract("I work at Globex Corporation and I live in Tallinn. I don't work at Initech Ltd.")
    facts = {(f.subject, f.predicate, f.object, f.cardinality) for f in result.facts}
    assert facts == {
        ("user", "EMPLOYED_BY", "Globex Corporation", "single"),
        ("user", "RESIDES_AT", "Tallinn", "single"),
    }


def test_type_trap_place_inside_an_event_name():
    result = extract("The Galway Harbour Festival was held at the Spanish Arch. Maeve flew in from Galway for it.")
    assert entity(result, "Galway Harbour Festival").type == "EVENT"
    assert entity(result, "Galway").type == "LOCATION"
    assert entity(result, "Galway").name != entity(result, "Galway Harbour Festival").name
    assert ("Galway Harbour Festival", "OCCURRED_AT", "Spanish Arch") in triples(result)


def test_relations_across_pronouns_appositives_and_plurals():
    result = extract(
        "Tern Analytics is a subsidiary of Orca Holdings. Tern runs a joint research lab with Pike Robotics. "
        "Both companies work out of the same Leeds building. Ravi Shah, the chief engineer at the Leeds building, "
        "uses two Falcon 3 drones. Orca Holdings keeps its headquarters in Glasgow."
    )
    found = triples(result)
    assert {
        ("Tern Analytics", "SUBSIDIARY_OF", "Orca Holdings"),
        ("Tern Analytics", "PARTNER_WITH", "Pike Robotics"),
        ("Tern Analytics", "LOCATED_AT", "Leeds building"),
        ("Pike Robotics", "LOCATED_AT", "Leeds building"),
        ("Ravi Shah", "LOCATED_AT", "Leeds building"),
        ("Ravi Shah", "USES", "Falcon 3 drones"),
        ("Orca Holdings", "HEADQUARTERS_AT", "Glasgow"),
    } <= found
    assert entity(result, "Falcon 3 drones").type == "OBJECT"


def test_stated_dates_become_valid_from():
    result = extract("Ines Rocha joined Vela Labs on 3 June 2021. She moved to Porto in March.", reference_date=date(2026, 2, 1))
    by_predicate = {f.predicate: f for f in result.facts}
    assert by_predicate["EMPLOYED_BY"].valid_from == date(2021, 6, 3)
    assert by_predicate["RESIDES_AT"].valid_from == date(2025, 3, 1)


def test_context_resolves_references_but_offsets_stay_in_the_message():
    text = "She joined Vela Labs last week."
    result = extract(text, context=[Turn(role="user", content="Ines Rocha is a chemist.")])
    assert triples(result) == {("Ines Rocha", "EMPLOYED_BY", "Vela Labs")}
    labs = entity(result, "Vela Labs")
    assert [(m.start, m.end) for m in labs.mentions] == [(11, 20)]
    assert entity(result, "Ines Rocha").mentions == []


def test_preferences_by_category_and_never_positive_when_negated():
    result = extract("I prefer aisle seats on long flights. I don't like spicy food. Please always answer in short bullet points.")
    found = {(p.category, p.preference, p.topic, p.polarity) for p in result.preferences}
    assert found == {
        ("travel", "prefers aisle seats on long flights", "aisle seats on long flights", "positive"),
        ("food", "dislikes spicy food", "spicy food", "negative"),
        ("style", "always answer in short bullet points", "answer in short bullet points", "positive"),
    }


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"EXTRACTOR": "", "OPENAI_API_KEY": ""}, OfflineExtractor),
        ({"EXTRACTOR": "", "OPENAI_API_KEY": "sk-test"}, OpenAIExtractor),
        ({"EXTRACTOR": "offline", "OPENAI_API_KEY": "sk-test"}, OfflineExtractor),
    ],
)
def test_get_extractor_follows_settings(overrides, expected):
    with override_settings(**overrides):
        assert isinstance(get_extractor(), expected)


def test_bench_extraction_prints_scores_and_counts_negated_relations():
    out = StringIO()
    with override_settings(EXTRACTOR="offline"):
        call_command("bench_extraction", gold=str(GOLD), stdout=out)
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert result["extractor"] == "offline" and result["documents"] == 10
    for scores in (result["entities"]["typed"], result["entities"]["untyped"], result["relations"]):
        assert set(scores) >= {"precision", "recall", "f1"} and 0.0 <= scores["f1"] <= 1.0
    assert result["entities"]["typed"]["f1"] <= result["entities"]["untyped"]["f1"]
    assert result["relations"]["gold"] == 29 and result["negative_relations_emitted"] == 0


@pytest.mark.parametrize(
    ("cases", "typed", "untyped", "fact_f1"),
    [(CASES, 0.97, 0.98, 0.97), (FRESH_CASES, 0.95, 0.98, 0.95)],
    ids=["tuned-on", "fresh"],
)
def test_held_out_sentences_keep_their_scores(cases, typed, untyped, fact_f1):
    scores = score(OfflineExtractor(), cases)
    print({k: v for k, v in scores.items() if k != "fact_misses"})
    assert scores["entities"]["typed"]["f1"] >= typed
    assert scores["entities"]["untyped"]["f1"] >= untyped
    assert scores["facts"]["f1"] >= fact_f1, scores["fact_misses"]


@pytest.mark.parametrize("text", [
    "Odile did not join Parrish Analytics.",
    "Odile never worked for Parrish Analytics.",
    "Odile no longer works at Parrish Analytics.",
    "Odile used to work at Parrish Analytics.",
    "Odile left Parrish Analytics in May.",
    "Odile might join Parrish Analytics.",
    "Perhaps Odile works at Parrish Analytics.",
    "Does Odile work at Parrish Analytics?",
    "Why did Odile join Parrish Analytics?",
])
def test_denied_ended_hedged_and_asked_statements_type_names_but_state_nothing(text):
    result = extract(text)
    assert result.facts == [] and result.relations == []
    assert types(result) == {"Odile": "PERSON", "Parrish Analytics": "ORGANIZATION"}


@pytest.mark.parametrize("verb", ["joined", "works at", "was hired by", "is a designer at", "did not join"])
def test_a_plain_name_after_a_job_verb_is_an_organisation(verb):
    result = extract(f"Casimir {verb} Thornbury.")
    assert types(result) == {"Casimir": "PERSON", "Thornbury": "ORGANIZATION"}


def test_sentence_openers_are_names_only_before_a_verb():
    assert [e.name for e in extract("Readers rarely notice the change.").entities] == []
    assert types(extract("Ask Lowri Pryce to review the draft.")) == {"Lowri Pryce": "PERSON"}
    assert facts(extract("Ilka joined Westerby as CTO.")) == {("Ilka", "EMPLOYED_BY", "Westerby")}


def test_first_person_statements_are_facts_about_the_user():
    result = extract("I'm a paramedic at Fenwick General Hospital. I just moved to Ostrava. I used to live in Brno.")
    assert facts(result) == {
        ("user", "EMPLOYED_BY", "Fenwick General Hospital"),
        ("user", "RESIDES_AT", "Ostrava"),
    }


def test_code_identifiers_are_things_and_their_relations_are_read():
    result = extract(
        "Service_Quotes depends on Service_Rates. QuoteWidget is part of Portal_Web. "
        "Service_Rates is owned by Pricing_Team. Ruairi assigned TASK-881 to Agent_Builder."
    )
    assert types(result) == {
        "Service_Quotes": "OBJECT", "Service_Rates": "OBJECT", "QuoteWidget": "OBJECT", "Portal_Web": "OBJECT",
        "Pricing_Team": "ORGANIZATION", "Ruairi": "PERSON", "TASK-881": "OBJECT", "Agent_Builder": "OBJECT",
    }
    assert facts(result) == {
        ("Service_Quotes", "DEPENDS_ON", "Service_Rates"),
        ("QuoteWidget", "PART_OF", "Portal_Web"),
        ("Service_Rates", "OWNED_BY", "Pricing_Team"),
        ("TASK-881", "ASSIGNED_TO", "Agent_Builder"),
    }


def test_ownership_is_one_single_valued_fact_whichever_way_it_is_said():
    said_forwards = extract("Yvonne owns the Harebell Florist.")
    said_backwards = extract("The Harebell Florist is owned by Yvonne.")
    for result in (said_forwards, said_backwards):
        assert [(f.subject, f.predicate, f.object, f.cardinality) for f in result.facts] == [
            ("Harebell Florist", "OWNED_BY", "Yvonne", "single"),
        ]
    assert triples(said_forwards) == {("Yvonne", "OWNS", "Harebell Florist")}


def test_attributes_become_single_valued_has_facts():
    result = extract(
        "Ticket_3187's priority is urgent. The status of Service_Fax is degraded. Build_412 has status blocked. "
        "The owner of Report_Weekly is Imogen Tate. The status of Service_Print is not degraded."
    )
    assert {(f.subject, f.predicate, f.object, f.cardinality) for f in result.facts} == {
        ("Ticket_3187", "HAS_PRIORITY", "urgent", "single"),
        ("Service_Fax", "HAS_STATUS", "degraded", "single"),
        ("Build_412", "HAS_STATUS", "blocked", "single"),
        ("Report_Weekly", "OWNED_BY", "Imogen Tate", "single"),
    }


def test_an_assistants_first_person_is_the_assistant_never_the_person():
    lisbon = Turn(role="user", content="I live in Lisbon.")
    said_by_assistant = extract("Nice! I live in Porto. I love surfing.", role="assistant", context=[lisbon])
    assert said_by_assistant.facts == [] and said_by_assistant.preferences == []
    assert types(said_by_assistant) == {"Porto": "LOCATION"}
    said_by_person = extract("Nice! I live in Porto. I love surfing.", role="user", context=[lisbon])
    assert facts(said_by_person) == {("user", "RESIDES_AT", "Porto")}
    assert [p.preference for p in said_by_person.preferences] == ["likes surfing"]


def test_third_parties_an_assistant_names_are_still_read():
    result = extract("Priya Nair works at Globex.", role="assistant")
    assert facts(result) == {("Priya Nair", "EMPLOYED_BY", "Globex")}


@pytest.mark.parametrize(("text", "people"), [
    ("Wow Mel, that's great!", set()),
    ("Hey Caroline! Was it fun?", set()),
    ("Wow Sam, thanks Sam!", set()),
    ("Yeah John, Let's keep up the good work and make a difference.", set()),
    ("Congrats Caroline! Remember Jon, Just do it!", set()),
    ("Thanks, Maria! I really appreciate your support, It means a lot to me.", set()),
    ("Caroline, so glad you got the support! That's a gorgeous song, Caroline.", set()),
    ("Life is good. Dancing is my passion. Hard work pays off. Setbacks are part of it.", set()),
    ("OMG that's awesome! BTW see you on Fri at 7 PM.", set()),
    ("Startin' my biz has been tough. Ah ha ha, yeah, JUST DOING IT!", set()),
    ('The sign says, "Always look on the bright side of life".', set()),
    ("Wow Sam, your sister Ada called. Sam said Ada is back.", {"Sam", "Ada"}),
    ("Ravi Shah, the chief engineer, uses two drones.", {"Ravi Shah"}),
])
def test_greetings_interjections_vocatives_and_openers_are_not_names(text, people):
    """A name only spoken to is no memory; the same name said of someone is ("Sam said")."""
    assert {name for name, type_ in types(extract(text)).items() if type_ == "PERSON"} == people
    assert all("Wow" not in e.name and "Hey" not in e.name for e in extract(text).entities)


def test_a_possessive_opener_is_not_an_entity():
    result = extract("My colleague Priya Nair works at Globex.")
    assert types(result) == {"Priya Nair": "PERSON", "Globex": "ORGANIZATION"}
    assert facts(result) == {("Priya Nair", "EMPLOYED_BY", "Globex")}


def test_being_a_fan_is_a_preference_not_employment():
    result = extract("I'm a big fan of Nintendo games.")
    assert result.facts == [] and result.relations == []
    assert [(p.preference, p.topic, p.polarity) for p in result.preferences] == [
        ("likes Nintendo games", "nintendo games", "positive"),
    ]
    assert facts(extract("I'm a game designer at Nintendo.")) == {("user", "EMPLOYED_BY", "Nintendo")}


@pytest.mark.parametrize(("text", "valid_from"), [
    ("Since 3 March 2025 I work at Contoso Bank.", date(2025, 3, 3)),
    ("On March 3, 2025 I joined Contoso Bank.", date(2025, 3, 3)),
    ("On 2025-03-03 I joined Contoso Bank.", date(2025, 3, 3)),
    ("I joined Contoso Bank on the 3rd of March 2025.", date(2025, 3, 3)),
    ("In March 2025 I joined Contoso Bank.", date(2025, 3, 1)),
    ("Since 2019 I work at Contoso Bank.", date(2019, 1, 1)),
    ("I joined Contoso Bank on 3 March.", date(2026, 3, 3)),
    ("I joined Contoso Bank on 21 March.", date(2025, 3, 21)),
    ("I joined Contoso Bank last Saturday.", date(2026, 3, 14)),
    ("I joined Contoso Bank two weeks ago.", date(2026, 3, 6)),
    ("I joined Contoso Bank yesterday.", date(2026, 3, 19)),
    ("I joined Contoso Bank last month.", date(2026, 2, 20)),
    ("I joined Contoso Bank last weekend.", date(2026, 3, 14)),
    ("I start at Contoso Bank next month.", date(2026, 4, 20)),
    ("I start at Contoso Bank in two weeks.", date(2026, 4, 3)),
    ("I joined Contoso Bank.", None),
])
def test_absolute_and_relative_dates_against_the_messages_own_day(text, valid_from):
    result = extract(text, reference_date=date(2026, 3, 20))  # a Friday
    assert [(f.predicate, f.object, f.valid_from) for f in result.facts] == [("EMPLOYED_BY", "Contoso Bank", valid_from)]


def test_relative_dates_need_the_reference_date_and_may_is_a_month_only_capitalised():
    assert [f.valid_from for f in extract("I joined Contoso Bank two weeks ago.").facts] == [None]
    assert stated_date("We may march in May 2024.", reference_date=None) == date(2024, 5, 1)
    assert stated_date("It may rain.", reference_date=date(2026, 3, 20)) is None


def test_an_events_place_is_not_single_valued():
    assert predicate_cardinality("OCCURRED_AT") == "multi" and predicate_cardinality("EMPLOYED_BY") == "single"


@pytest.mark.parametrize(("predicate", "cardinality"), [
    ("EMPLOYED_BY", "single"), ("HAS_STATUS", "single"), ("KNOWS", "multi"), ("LIVES_IN", "single"),
])
def test_predicate_cardinality_is_decided_in_one_place(predicate, cardinality):
    with override_settings(SINGLE_VALUED_PREDICATES=["EMPLOYED_BY", "LIVES_IN"]):
        assert predicate_cardinality(predicate) == cardinality
        assert extraction_from_explicit({"facts": [
            {"subject": "user", "predicate": predicate, "object": "x"}]}).facts[0].cardinality == cardinality


def test_what_the_person_says_of_themselves_in_chat():
    result = extract("Hi! My name is Sam and I would like a Mocha. That is not near me! I am in The Woodlands.")
    assert {(f.subject, f.predicate, f.object, f.cardinality) for f in result.facts} == {
        ("user", "HAS_NAME", "Sam", "single"), ("user", "LOCATED_AT", "The Woodlands", "single"),
    }
    assert facts(extract("Hello, my name is jack of diamonds, and I'd like a Macchiato.")) == {
        ("user", "HAS_NAME", "jack of diamonds"),
    }
    assert extract("Hi, my name is Ava and I am in Leeds.", role="assistant").facts == []


@pytest.mark.parametrize(("text", "topics"), [
    ("Guitar's mostly my thing. Playing it helps me.", ["guitar"]),
    ("Staying in shape is important to me too.", ["staying in shape"]),
    ("Ah, they're adorable! Pets sure do bring so much joy to us! Dance is my go-to for stress relief.", ["pets", "dance"]),
    ("Seeing this made me appreciate my love of reading even more.", ["reading"]),
    ("I'm keen on counseling or working in mental health - I'd love to help.", ["counseling or working in mental health"]),
    ("I've been into dancing since I was a kid.", ["dancing"]),
    ('I loved "Becoming Nicole" by Amy Ellis Nutt.', ["becoming nicole"]),
    ("I want to help people. I like to see a comedy movie tonight. I love it! I love that you came.", []),
])
def test_preferences_said_the_way_people_chat(text, topics):
    result = extract(text)
    assert [p.topic for p in result.preferences] == topics
    assert all(p.polarity == "positive" for p in result.preferences)


def test_preference_categories_and_a_second_clause_of_the_same_liking():
    result = extract("Cool, Gina! I love all dances, but contemporary is my top pick. I love almond milk in my latte.")
    assert [(p.category, p.topic) for p in result.preferences] == [
        ("entertainment", "all dances"), ("general", "contemporary"), ("food", "almond milk in my latte"),
    ]


@pytest.mark.parametrize(("text", "expected"), [
    ("We drove through California and Oregon.", {"California": "LOCATION", "Oregon": "LOCATION"}),
    ("I'm looking to book a table for Korean food.", {}),
    ("Hi, I would like to order a Mocha and an iced Latte.", {}),
    ('I loved "Becoming Nicole" by Amy Ellis Nutt.', {"Becoming Nicole": "OBJECT", "Amy Ellis Nutt": "PERSON"}),
    ('Yeah totally! "Brave" by Sara Bareilles means a lot to me.', {"Brave": "OBJECT", "Sara Bareilles": "PERSON"}),
    ("It's playing at Alamo Drafthouse Cinema South Lamar.", {"Alamo Drafthouse Cinema South Lamar": "LOCATION"}),
])
def test_chat_names_are_typed_by_what_they_are(text, expected):
    assert types(extract(text)) == expected


def test_the_same_liking_said_twice_has_one_topic():
    said = ["I like curry for lunch.", "I really love curry for lunch so much!", "I've always been into curry for lunch."]
    assert {(p.topic, p.polarity) for text in said for p in extract(text).preferences} == {("curry for lunch", "positive")}
    assert [(p.topic, p.polarity) for p in extract("I don't like curry for lunch anymore.").preferences] == [
        ("curry for lunch", "negative"),
    ]


@pytest.mark.django_db
def test_through_the_write_path_an_assistants_home_never_becomes_the_persons(granted):
    subject, _, client = granted
    response = client.post("/api/v1/conversations/s1/messages", {"user_id": subject.user_id, "messages": [
        {"role": "user", "content": "I live in Lisbon. I'm a big fan of Nintendo games."},
        {"role": "assistant", "content": "Nice! I live in Porto. I love surfing."},
    ]}, format="json")
    for result in response.json()["results"]:
        assert message_extract(message_uid=result["uid"], user_id=subject.user_id) == "done"
    facts, _ = db.cypher_query("MATCH (f:Fact {user_id: $u}) RETURN f.subject, f.predicate, f.object, f.valid_until",
                               {"u": subject.user_id})
    assert facts == [["user", "RESIDES_AT", "Lisbon", None]]
    preferences, _ = db.cypher_query("MATCH (p:Preference {user_id: $u}) RETURN p.preference", {"u": subject.user_id})
    assert preferences == [["likes Nintendo games"]]


def test_going_to_an_event_is_taking_part_in_it():
    result = extract("Last Friday, I went to an LGBTQ+ counseling workshop. I went to Boka for dinner.",
                     reference_date=date(2023, 6, 27))
    assert [(f.subject, f.predicate, f.object, f.valid_from) for f in result.facts] == [
        ("user", "PARTICIPATED_IN", "LGBTQ+ counseling workshop", date(2023, 6, 23)),
    ]
    assert types(result)["LGBTQ+ counseling workshop"] == "EVENT"


def test_film_titles_with_their_rating_are_things_and_abbreviations_no_organisations():
    result = extract("You can see Notting Hill (PG-13) or Bridesmaids (R) on the TV tonight.", role="assistant")
    assert types(result) == {"Notting Hill": "OBJECT", "Bridesmaids": "OBJECT"}


def test_a_chat_sentence_that_leaves_out_i_still_speaks_for_the_person():
    result = extract("Just got back from a family road trip yesterday, it was fun! Moved to Leeds last year. "
                     "Met Sarah at the conference.", reference_date=date(2026, 3, 20))
    assert {(f.subject, f.predicate, f.object, f.valid_from) for f in result.facts} == {
        ("user", "PARTICIPATED_IN", "family road trip", date(2026, 3, 19)),
        ("user", "RESIDES_AT", "Leeds", date(2025, 3, 20)),
        ("user", "KNOWS", "Sarah", None),
    }
    assert "Met Sarah" not in types(result)
    assert extract("Just got back from a family road trip yesterday.", role="assistant").facts == []


@pytest.mark.parametrize(("text", "role"), [
    ("It's paid off now that I'm an assistant manager- it's like a stepping stone.", "assistant manager"),
    ("I am now a senior software engineer.", "senior software engineer"),
    ("I'm a big fan of Nintendo games.", None),
    ("I'm not a teacher.", None),
    ("I'm a nurse at Lakeview General Hospital.", None),  # an employer, said as EMPLOYED_BY
])
def test_a_role_the_person_states(text, role):
    roles = [f.object for f in extract(text).facts if f.predicate == "HAS_ROLE"]
    assert roles == ([role] if role else [])
    assert [f for f in extract(text, role="assistant").facts if f.subject == "user"] == []


def test_a_planned_event_is_not_yet_taken_part_in():
    assert extract("I'm going to a transgender conference this month.").facts == []
    assert facts(extract("I went to a transgender conference last month.")) == {
        ("user", "PARTICIPATED_IN", "transgender conference"),
    }


def test_a_line_break_ends_a_name_and_a_glued_time_does_not_start_one():
    result = extract("Scream plays at Cinemark 17 and 9:15 PMAlamo Drafthouse Cinema Mueller",
                     context=[Turn(role="user", content="I am in Davis, California")])
    assert "Alamo Drafthouse Cinema Mueller" in types(result)
    assert not any("\n" in e.name or e.name.startswith("PM") for e in result.entities)
    assert "California\n\nScream" not in types(extract("California\n\nScream plays at nine."))


def test_unnamed_things_of_a_personal_turn_are_no_entities_but_stay_the_objects_of_facts():
    result = extract("Hi, my car just died out there. Just got back from a family road trip yesterday.")
    assert result.entities == []
    assert ("user", "PARTICIPATED_IN", "family road trip") in facts(result)
    assert [e.surface_forms for e in extract("The trust owns four minibuses.").entities] == [["minibuses", "four minibuses"]]


def test_this_and_that_take_a_singular_noun():
    result = extract("That sounds great!", context=[Turn(role="assistant", content='The band was "Summer Sounds".')])
    assert result.entities == []


def test_kinds_of_food_and_drink_written_with_a_capital_are_no_names():
    result = extract("Can I have a Cappuccino with Vanilla and Oat milk? We have Sugar Free Vanilla and Caramel Sauce.",
                     role="assistant")
    assert result.entities == []
    assert types(extract("You can see Licorice Pizza (PG) tonight.", role="assistant")) == {"Licorice Pizza": "OBJECT"}


def test_a_cinemas_screen_formats_and_its_at_sign_belong_to_its_name():
    result = extract("Scream plays at Cinemark 17 and XD, Regal Arbor @ Great Hills and Century Daly City 20 XD and IMAX.",
                     role="assistant")
    venues = {e.name: (e.type, e.aliases) for e in result.entities if e.name != "Scream"}
    assert venues == {
        "Cinemark 17 and XD": ("LOCATION", ["Cinemark 17"]),
        "Regal Arbor @ Great Hills": ("LOCATION", ["Regal Arbor"]),
        "Century Daly City 20 XD and IMAX": ("LOCATION", ["Century Daly City 20"]),
    }
    assert extract("Is it in IMAX or XD?").entities == []


@pytest.mark.parametrize(("text", "title"), [
    ("Where is No Time To Die playing?", "No Time To Die"),
    ("No Time To Die is playing at nine.", "No Time To Die"),
    ("Sorry No Time to Die is not playing.", "No Time to Die"),
    ("What is Spider-Man: No Way Home about?", "Spider-Man: No Way Home"),
    ("I wonder if Top Gun: Maverick is going to win.", "Top Gun: Maverick"),
    ("The movies are Eternals, My Hero Academia: World Heroes' Mission and Dune.", "My Hero Academia: World Heroes' Mission"),
    ("They play Before Sunrise (R), and Pretty in Pink (PG-13).", "Pretty in Pink"),
    ("They play The King's Man (R) at nine.", "The King's Man"),
    ("Regal plays Clifford the Big Red Dog and Last Night in Soho.", "Clifford the Big Red Dog"),
    ("Regal plays Clifford the Big Red Dog and Last Night in Soho.", "Last Night in Soho"),
])
def test_titles_in_title_case_are_read_whole(text, title):
    result = extract(text, role="assistant")
    assert title in types(result)
    assert not any(e.name != title and e.name in title for e in result.entities)


@pytest.mark.parametrize("text", [
    "Here's the synopsis of Moonfall: The world stands still.",
    "They are showing Scream: Alamo Drafthouse Cinema Mueller and Regal Davis.",
    "Note: Sam is late.",
    "I met Sam in London.",
    "Jackass Forever (R) is a Comedy/Pranks.",
])
def test_a_colon_a_small_word_or_a_slash_joins_no_names_outside_a_title(text):
    names = set(types(extract(text, role="assistant")))
    assert not any(":" in name or " in " in name or "Pranks" in name for name in names)


@pytest.mark.parametrize(("text", "name"), [
    ("Have you been watching Severance? It is so good.", "Severance"),
    ("Regal Davis is playing Eternals tonight.", "Eternals"),
    ("Two tickets for Spencer, please.", "Spencer"),
    ("Redeeming Love is playing at the Flix Brewhouse.", "Redeeming Love"),
    ("Sorry No Time to Die is not playing.", "No Time to Die"),
    ("Is Belfast showing now anywhere?", "Belfast"),
    ("The Varsity Theatre has Dune (coming Nov 09) and Spencer (coming Nov 09).", "Spencer"),
    ("There are no showings of Spencer today.", "Spencer"),
])
def test_what_is_watched_or_shown_is_a_thing(text, name):
    assert types(extract(text))[name] == "OBJECT"
    assert types(extract("I watched it with Sam."))["Sam"] == "PERSON"


@pytest.mark.parametrize(("text", "fact"), [
    ("I volunteer at the Leeds Food Bank on Sundays.", ("user", "VOLUNTEERS_AT", "Leeds Food Bank")),
    ("Woah, that pic's from when my dance crew took home first.", ("user", "MEMBER_OF", "dance crew")),
    ("Our one-year-old is so cute, his name is Kyle!", ("user", "PARENT_OF", "Kyle")),
    ("My son Kyle started school.", ("user", "PARENT_OF", "Kyle")),
    ("A gift from my grandma in my home country, Sweden.", ("user", "FROM", "Sweden")),
    ("I'm originally from Portugal.", ("user", "FROM", "Portugal")),
    ("Oh, I've been to Paris yesterday!", ("user", "VISITED", "Paris")),
    ("I started playing acoustic guitar about five years ago.", ("user", "PLAYS", "acoustic guitar")),
    ("I went to a LGBTQ support group yesterday.", ("user", "PARTICIPATED_IN", "LGBTQ support group")),
])
def test_what_the_person_says_of_their_life_in_chat(text, fact):
    assert fact in facts(extract(text))
    assert [f for f in extract(text, role="assistant").facts if f.subject == "user"] == []


@pytest.mark.parametrize("text", [
    "My favourite band is playing tonight.",
    "I'm not from Sweden.",
    "I might volunteer at the Leeds Food Bank.",
    "Have you been to Paris?",
    "I want to play guitar.",
])
def test_no_fact_of_the_person_from_a_liking_a_denial_a_hedge_a_question_or_a_wish(text):
    assert [f for f in extract(text).facts if f.subject == "user"] == []


def test_a_short_answer_with_a_place_to_where_the_person_is_says_where_they_are():
    asked = [Turn(role="user", content="Where is Eternals playing?"), Turn(role="assistant", content="In what city?")]
    result = extract("Austin, Texas", context=asked)
    assert facts(result) == {("user", "LOCATED_AT", "Austin")}
    assert types(result) == {"Austin": "LOCATION", "Texas": "LOCATION"}
    theater = [Turn(role="assistant", content="OK. What city and state is that theater in?")]
    assert extract("Round Rock, Texas", context=theater).facts == []
    assert extract("Austin, Texas", context=asked, role="assistant").facts == []


def test_names_in_a_list_or_paired_are_names_and_praise_before_a_name_addresses_it():
    result = extract("The movies are Eternals, Red Notice, Annaatthe, Dune and Batman Returns.", role="assistant")
    assert "Annaatthe" in types(result)
    assert set(types(extract("Luna and Oliver! They are so sweet.", role="assistant"))) == {"Luna", "Oliver"}
    assert set(types(extract("You went to Paris? That is really great Jon! Sorry, Mel.", role="assistant"))) == {"Paris"}


@pytest.mark.parametrize(("text", "expected"), [
    ("I like to see Scream at Cinemark 17 tonight or later.", []),
    ("I like to see that with my brother.", []),
    ("I don't want Eternals. I want No Time To Die", []),
    ("I don't want future generations to go through that.", []),
    ("I don't want mushrooms on my pizza.", [("negative", "mushrooms on my pizza")]),
    ("I like to watch old movies.", [("positive", "watch old movies")]),
    ("I feel drawn to serving my country.", [("positive", "serving my country")]),
])
def test_a_request_for_a_particular_thing_or_a_wish_for_others_is_no_preference(text, expected):
    assert [(p.polarity, p.topic) for p in extract(text).preferences] == expected


def test_the_names_of_a_list_take_the_type_its_typed_members_agree_on():
    result = extract("The movies are Eternals, No Time to Die, Red Notice, Last Night in Soho and Dune.", role="assistant")
    assert set(types(result).values()) == {"OBJECT"}
    assert types(extract("I met Sam, Tom and Ana at Acme Corp."))["Sam"] == "PERSON"
    assert types(extract("It was signed by Priya, Marcus and Kestrel Robotics."))["Priya"] == "PERSON"


def test_a_quoted_nickname_between_a_first_and_a_last_name_is_part_of_the_name():
    result = extract('With weeks left, NASA executive Jocinda "Jo" Fowler teams up with a man.', role="assistant")
    assert types(result) == {"NASA": "ORGANIZATION", 'Jocinda "Jo" Fowler': "PERSON"}
    assert types(extract('I loved "Brave" by Sara Bareilles.'))["Brave"] == "OBJECT"


@pytest.mark.parametrize("first", ["user", "assistant"])
def test_a_speaker_label_is_the_speaker_never_an_entity_nor_read_by_a_rule(first):
    second = "assistant" if first == "user" else "user"
    context = [Turn(role=first, content="Caroline: Hey Mel! Thanks Mel, it was great."),
               Turn(role=second, content="Melanie: Did you like the Boston trip?")]
    text = "Caroline: Thanks Melanie! I went to Boston with my friend Jon Snow."
    labelled = extract(text, role=first, context=context)
    plain = extract(text.split(": ", 1)[1], role=first, context=[Turn(t.role, t.content.split(": ", 1)[1]) for t in context])
    assert types(labelled) == types(plain) == {"Boston": "LOCATION", "Jon Snow": "PERSON"}
    assert facts(labelled) == facts(plain)
    assert all(text[m.start:m.end] == m.text for e in labelled.entities for m in e.mentions)


def test_titles_in_quotes_are_names_never_relations():
    result = extract('I loved "The Lord of the Rings" and \'Embracing Identity\'. "Charlotte\'s Web" too!')
    assert types(result) == {"The Lord of the Rings": "OBJECT", "Embracing Identity": "OBJECT", "Charlotte's Web": "OBJECT"}
    assert result.facts == [] and result.relations == []


@pytest.mark.parametrize("text", [
    "I'll let you know when I'm in Boston!", "When I'm in Boston I'll call you.", "I will move to Lisbon next year.",
    "I'd join Fjord Systems in a heartbeat.", "Can't wait to visit Japan someday.",
])
def test_future_hypothetical_and_conditional_statements_are_no_facts(text):
    assert extract(text).facts == []


def test_a_pronoun_in_the_subjects_form_is_no_object():
    result = extract("I love DIYs, and I know she does too.")
    assert result.facts == [] and result.entities == []


@pytest.mark.parametrize(("text", "context"), [
    ("I'd rather show you a photo of it.", ""), ("I love your commitment!", ""), ("I like to say thanks for that.", ""),
    ("I love all the yellow leaves, it looks so cozy.", ""), ("Wow, I love the colors!", "Here's a pic of my garden."),
])
def test_compliments_and_remarks_to_the_listener_are_no_preferences(text, context):
    earlier = [Turn(role="assistant", content=context)] if context else []
    assert extract(text, context=earlier).preferences == []


def test_a_liking_of_a_kind_stays_a_preference_beside_a_photo():
    earlier = [Turn(role="assistant", content="Here's a pic from the show.")]
    assert [p.topic for p in extract("I love all dances, but contemporary is my top pick.", context=earlier).preferences] \
        == ["all dances", "contemporary"]


@pytest.mark.parametrize(("text", "name", "type_"), [
    ("I posted the video on Facebook last night.", "Facebook", "ORGANIZATION"),
    ("We took the Prius for a long drive.", "Prius", "OBJECT"),
    ("I've been playing Civilization a lot.", "Civilization", "OBJECT"),
    ("Last month we flew to Nuuk for a week.", "Nuuk", "LOCATION"),
    ("We had to say goodbye to Max.", "Max", "PERSON"),
])
def test_a_names_type_comes_from_its_context(text, name, type_):
    assert types(extract(text))[name] == type_


def test_a_participant_named_in_a_labelled_conversation_is_no_entity():
    context = [Turn(role="user", content="Jon: I lost my job."), Turn(role="assistant", content="Gina: Oh no!")]
    result = extract("Jon: Thanks Gin. Sorry about your shop Gina, and say hi to Rob.", context=context)
    assert types(result) == {"Rob": "PERSON"}


def test_taking_part_in_something_unnamed_is_not_taking_part_in_the_last_event():
    context = [Turn(role="assistant", content="I joined a beginner class last week.")]
    assert extract("I participated in a 5K charity run for a shelter.", context=context).facts == []


@pytest.mark.parametrize(("text", "fact"), [
    ("Just yesterday I joined a nearby church.", ("user", "MEMBER_OF", "nearby church")),
    ("I just joined a new LGBTQ activist group last Tues.", ("user", "MEMBER_OF", "LGBTQ activist group")),
    ("My family and I went on a road trip to Oregon.", ("user", "VISITED", "Oregon")),
    ("Last week I went on a mountaineering trip with workmates.", ("user", "PARTICIPATED_IN", "mountaineering trip")),
])
def test_what_the_person_joined_and_where_they_went(text, fact):
    assert fact in facts(extract(text))


@pytest.mark.parametrize(("text", "topic"), [
    ("Friendship means a lot to me.", "friendship"), ("Dancing makes me so happy.", "dancing"),
    ('"Brave" has a lot of significance for me.', "brave"), ("Volunteering is an important part of my life.", "volunteering"),
    ("My family is my motivation and they keep me going.", None),
])
def test_what_means_a_lot_or_keeps_the_person_going_is_a_liking(text, topic):
    assert [p.topic for p in extract(text).preferences] == ([topic] if topic else [])


@pytest.mark.parametrize("text", [
    "I love making him happy.", "I enjoy the taste of these.", "I love their work.", "Love sure does bring us joy, huh?",
    "I'm passionate about sharing that with others.", "Remembering those we love is important.",
])
def test_a_liking_of_a_reference_or_asked_is_no_preference(text):
    assert extract(text).preferences == []


def test_a_reference_inside_a_longer_topic_keeps_it():
    assert [p.topic for p in extract("I love helping the community and making it a better place.").preferences] == [
        "helping the community and making it a better place"]


@pytest.mark.parametrize(("text", "names"), [
    ('I watched "The Lord of the Rings" Trilogy last night!', {"The Lord of the Rings": "OBJECT"}),
    ("See ya Nate! Anytime Jo!", {}), ("Recently started learning an instrument.", {}),
    ("German Shepherds are loyal.", {}), ("I really should start one, shouldn't I. That seems valuable!", {}),
    ("Wow, Congrats on those deals!", {}),
])
def test_what_chat_capitalises_is_no_name(text, names):
    result = extract(text)
    assert types(result) == names and result.facts == []


def test_a_person_of_a_thing_is_no_employee():
    assert extract("It's a map of Middle-earth from LOTR.").facts == []


def test_joining_a_group_is_membership_and_an_opinion_is_no_attribute():
    assert facts(extract("I just joined a writers group.")) == {("user", "MEMBER_OF", "writers group")}
    assert extract("Hey, Boston's music scene is awesome!").facts == []
