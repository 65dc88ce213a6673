import json
from datetime import date
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import override_settings

from memory.extraction import Turn, get_extractor
from memory.extraction.dates import stated_date
from memory.extraction.offline import OfflineExtractor
from memory.extraction.openai_extractor import OpenAIExtractor
from memory.extraction.rules import predicate_cardinality
from memory.ingest import extraction_from_explicit
from tests.support.extraction import entity, extract, facts, triples, types
from tests.support.stack import ROOT
from tests.memory.extraction_heldout import CASES, FRESH_CASES, score

GOLD = ROOT / "data" / "poleo" / "poleo_gold.json"


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
        ("instruction", "Please always answer in short bullet points.", "please always answer in short bullet points",
         "positive"),
    }


def test_a_standing_instruction_is_kept_in_the_persons_words_and_is_no_other_preference():
    text = "I love Lisbon. From now on, please book me aisle seats, I hate the middle. Never give up!"
    assert [(p.category, p.preference) for p in extract(text).preferences] == [
        ("general", "likes Lisbon"),
        ("instruction", "From now on, please book me aisle seats, I hate the middle.")]
    assert extract(text, role="assistant").preferences == []


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


# A name nothing types is UNTYPED (issue 40) and counts against typed F1: "Mateus never uses Slack", "My favourite
# editor is Neovim" cost the tuned-on cases 0.97 -> 0.965.
@pytest.mark.parametrize(
    ("cases", "typed", "untyped", "fact_f1"),
    [(CASES, 0.96, 0.98, 0.97), (FRESH_CASES, 0.95, 0.98, 0.95)],
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
