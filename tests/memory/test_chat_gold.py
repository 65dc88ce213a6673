"""The chat gold set's shape, its LoCoMo loader, the scorer's arithmetic, and the bench command end to end."""

import hashlib
import json
import re
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from neomodel import db

from memory.extraction import ExtractedEntity, ExtractedFact, ExtractedPreference, Extraction
from memory.extraction.gold import GoldError, GoldTurn, gold_load, gold_score, surface
from memory.extraction.results import ENTITY_TYPES, POLARITIES

GOLD = Path(settings.BASE_DIR) / "data" / "chat_gold"
DEVELOPMENT = {"conv-26", "conv-30", "conv-41"}


def raw_turns(name):
    return json.loads((GOLD / name).read_text())["turns"]


def dialog_of(turn):
    return turn.get("conversation_id") or f"{turn['sample_id']}:{turn['session']}"


def test_gold_turns_are_labelled_unique_and_enough():
    taskmaster, locomo = raw_turns("taskmaster.json"), raw_turns("locomo_dev.json")
    turns = taskmaster + locomo
    assert len(turns) >= 200
    assert len({t["id"] for t in turns}) == len(turns)
    seen = {}
    for turn in turns:
        assert turn["role"] in ("user", "assistant") and turn["round"] in (1, 2), turn["id"]
        assert all(isinstance(turn[key], list) for key in ("entities", "facts", "preferences")), turn["id"]
        earlier = seen.setdefault(dialog_of(turn), [])
        assert turn["context"] == earlier, f"{turn['id']}: context is not the dialog's earlier turns"
        earlier.append(turn["id"])
        for entity in turn["entities"]:
            assert {entity["type"], *entity.get("also", ())} <= set(ENTITY_TYPES), turn["id"]
        for fact in turn["facts"]:
            assert fact["subject"] == "user" and re.fullmatch(r"[A-Z_]+", fact["predicate"]), turn["id"]
        for preference in turn["preferences"]:
            assert preference["polarity"] in POLARITIES and preference["topic"] and preference["category"], turn["id"]
        if turn["role"] == "assistant":
            assert not turn["facts"] and not turn["preferences"], f"{turn['id']}: the assistant's first person is not the person"
    assert sum(bool(t["entities"]) for t in turns) >= 60
    assert sum(len(t["facts"]) for t in turns) >= 10 and sum(len(t["preferences"]) for t in turns) >= 15


def test_taskmaster_labels_name_what_the_text_says():
    for turn in raw_turns("taskmaster.json"):
        assert turn["text"].strip(), turn["id"]
        text = turn["text"].casefold()
        for entity in turn["entities"]:
            assert any(form.casefold() in text for form in [entity["name"], *entity.get("aliases", ())]), \
                f"{turn['id']}: {entity['name']} is not in the text"


def test_locomo_labels_carry_no_text_and_only_development_conversations():
    data = json.loads((GOLD / "locomo_dev.json").read_text())
    assert set(data["samples"]) == DEVELOPMENT
    for turn in data["turns"]:
        assert "text" not in turn and re.fullmatch(r"[0-9a-f]{64}", turn["text_sha256"]), turn["id"]
        assert turn["sample_id"] in DEVELOPMENT and turn["id"] == f"{turn['sample_id']}:{turn['dia_id']}"


@pytest.mark.parametrize("name", ["locomo_heldout.json", "locomo_entities.json", "locomo_entities_fresh.json",
                                  "locomo_entities_fresh2.json"])
def test_heldout_labels_carry_no_text_and_no_development_conversation(name):
    data = json.loads((GOLD / name).read_text())
    turns = data["turns"]
    assert len(turns) >= 150 and len({t["id"] for t in turns}) == len(turns)
    assert not set(data["samples"]) & DEVELOPMENT
    seen = {}
    for turn in turns:
        assert "text" not in turn and "role" not in turn and re.fullmatch(r"[0-9a-f]{64}", turn["text_sha256"]), turn["id"]
        assert turn["sample_id"] in data["samples"] and f"{turn['sample_id']}:{turn['session']}" in data["sessions"]
        earlier = seen.setdefault(dialog_of(turn), [])
        assert turn["context"] == earlier, f"{turn['id']}: context is not the session's earlier turns"
        earlier.append(turn["id"])
        assert all(fact["subject"] == "user" for fact in turn["facts"]), turn["id"]
        for entity in turn["entities"]:
            assert {entity["type"], *entity.get("also", ())} <= set(ENTITY_TYPES), turn["id"]


def test_the_entity_sample_is_fresh_and_labels_entities_only():
    entities = json.loads((GOLD / "locomo_entities.json").read_text())
    assert not set(entities["sessions"]) & set(json.loads((GOLD / "locomo_heldout.json").read_text())["sessions"])
    assert all(not t["facts"] and not t["preferences"] for t in entities["turns"])
    assert sum(len(t["entities"]) for t in entities["turns"]) >= 50


@pytest.mark.parametrize(("name", "earlier", "least"), [
    ("locomo_entities_fresh.json", ("locomo_heldout.json", "locomo_entities.json"), 40),
    ("locomo_entities_fresh2.json", ("locomo_heldout.json", "locomo_entities.json", "locomo_entities_fresh.json"), 25),
])
def test_a_fresh_entity_sample_shares_no_session_with_the_files_before_it(name, earlier, least):
    fresh = json.loads((GOLD / name).read_text())
    for other in earlier:
        assert not set(fresh["sessions"]) & set(json.loads((GOLD / other).read_text())["sessions"]), other
    assert all(not t["facts"] and not t["preferences"] for t in fresh["turns"])
    assert sum(len(t["entities"]) for t in fresh["turns"]) >= least


@pytest.fixture
def tiny_gold(tmp_path):
    """A gold directory with the real Taskmaster file and one LoCoMo turn, and a LoCoMo copy that holds it."""
    gold, locomo = tmp_path / "gold", tmp_path / "locomo"
    gold.mkdir()
    locomo.mkdir()
    shutil.copy(GOLD / "taskmaster.json", gold)
    text = "Hey Mel! I moved to Lisbon last week."
    (gold / "locomo_dev.json").write_text(json.dumps({"samples": ["conv-26"], "turns": [{
        "id": "conv-26:D1:1", "sample_id": "conv-26", "dia_id": "D1:1", "session": 1, "speaker": "Caroline",
        "role": "user", "context": [], "text_sha256": hashlib.sha256(text.encode()).hexdigest(),
        "entities": [{"name": "Lisbon", "type": "LOCATION"}], "preferences": [],
        "facts": [{"subject": "user", "predicate": "RESIDES_AT", "object": "Lisbon"}]}]}))
    conversation = {"speaker_a": "Caroline", "speaker_b": "Melanie", "session_1_date_time": "1:56 pm on 8 May, 2023",
                    "session_1": [{"speaker": "Caroline", "dia_id": "D1:1", "text": text}]}
    (locomo / "26.json").write_text(json.dumps(conversation))
    return gold, locomo, conversation


def test_locomo_text_is_read_from_the_local_copy_and_checked(tiny_gold):
    gold, locomo, conversation = tiny_gold
    without = gold_load(directory=gold)
    turns = gold_load(directory=gold, locomo=locomo)
    assert len(turns) == len(without) + 1 and all(t.source == "taskmaster" for t in without)
    added = turns[-1]
    assert (added.source, added.role, added.text) == ("locomo", "user", "Hey Mel! I moved to Lisbon last week.")
    assert added.reference_date.isoformat() == "2023-05-08"
    assert added.facts and added.speaker == "Caroline"
    swapped = gold_load(directory=gold, locomo=locomo, first_speaker="assistant")[-1]
    assert (swapped.role, swapped.entities, swapped.facts) == ("assistant", added.entities, ())

    conversation["session_1"][0]["text"] = "Hey Mel! I moved to Porto last week."
    (locomo / "26.json").write_text(json.dumps(conversation))
    with pytest.raises(GoldError, match="differs from the one labelled"):
        gold_load(directory=gold, locomo=locomo)
    (locomo / "26.json").unlink()
    with pytest.raises(GoldError, match="no conv-26"):
        gold_load(directory=gold, locomo=locomo)


def test_locomo_text_is_read_from_locomo10_json_too(tiny_gold):
    gold, locomo, conversation = tiny_gold
    (locomo / "26.json").unlink()
    (locomo / "data").mkdir()
    (locomo / "data" / "locomo10.json").write_text(json.dumps([{"sample_id": "conv-26", "conversation": conversation}]))
    assert gold_load(directory=gold, locomo=locomo)[-1].text == "Hey Mel! I moved to Lisbon last week."


def test_surface_forms_ignore_case_quotes_articles_and_possessives():
    assert surface("The  Woodlands.") == surface("woodlands") == "woodlands"
    assert surface("Ed Sheeran's") == "ed sheeran"
    assert surface('"Brave"') == "brave"


def entity(name, type_):
    return ExtractedEntity(name=name, type=type_)


def fact(subject, predicate, object_):
    return ExtractedFact(subject=subject, predicate=predicate, object=object_, cardinality="multi", confidence=0.9)


def preference(category, topic, polarity):
    return ExtractedPreference(category=category, preference=topic, confidence=0.7, topic=topic, polarity=polarity)


def test_scorer_arithmetic_on_a_hand_made_case():
    said = GoldTurn(
        id="a", source="one", role="user", context=(), text="", reference_date=None,
        entities=({"name": "Lisbon", "type": "LOCATION", "aliases": ["Lisboa"]}, {"name": "Acme Corp", "type": "ORGANIZATION"}),
        facts=({"subject": "user", "predicate": "RESIDES_AT", "object": "Lisbon"},),
        preferences=({"category": "food", "topic": "spicy food", "polarity": "positive"},),
        ignore=("LGBTQ",),
    )
    answered = GoldTurn(id="b", source="two", role="assistant", context=("a",), text="", reference_date=None)
    report = gold_score(scored=[
        (said, Extraction(
            entities=[entity("lisboa", "LOCATION"), entity("Lisbon", "LOCATION"), entity("Acme Corp", "PERSON"),
                      entity("Hey Mel", "PERSON"), entity("LGBTQ", "ORGANIZATION")],
            facts=[fact("user", "RESIDES_AT", "Lisbon"), fact("user", "EMPLOYED_BY", "Nintendo"),
                   fact("Acme Corp", "LOCATED_AT", "Lisbon")],
            preferences=[preference("food", "spicy food for lunch", "positive"), preference("general", "mondays", "negative"),
                         preference("food", "spicy food", "negative")],
        )),
        (answered, Extraction(entities=[entity("Porto", "LOCATION")], facts=[fact("user", "RESIDES_AT", "Porto")],
                              preferences=[preference("general", "it", "positive")])),
    ])
    overall = report["overall"]
    # Five predictions count (the ignored LGBTQ does not): Lisboa and Acme Corp match; a second Lisbon does not.
    assert overall["entities"] == {"precision": 0.4, "recall": 1.0, "f1": 0.5714, "matched": 2, "predicted": 5, "gold": 2}
    assert overall["entities_typed"] == {"precision": 0.2, "recall": 0.5, "f1": 0.2857, "matched": 1, "predicted": 5, "gold": 2}
    assert overall["facts"] == {"precision": 0.3333, "recall": 1.0, "f1": 0.5, "matched": 1, "predicted": 3, "gold": 1}
    assert overall["preferences"] == {"precision": 0.25, "recall": 1.0, "f1": 0.4, "matched": 1, "predicted": 4, "gold": 1}
    assert overall["preference_category_agreement"] == 1.0
    assert (overall["person_facts_from_assistant_turns"], overall["preferences_from_assistant_turns"],
            overall["facts_about_others"]) == (1, 1, 1)
    assert report["by_source"]["one"]["entities"]["predicted"] == 4 and report["by_source"]["two"]["entities"]["gold"] == 0
    assert sorted(report["false_positives"]["entities"]) == [
        ["Hey Mel (PERSON)", 1, "a"], ["Lisbon (LOCATION)", 1, "a"], ["Porto (LOCATION)", 1, "b"]]
    assert sorted(report["false_positives"]["facts"]) == [["user EMPLOYED_BY Nintendo", 1, "a"], ["user RESIDES_AT Porto", 1, "b"]]


def test_bench_scores_the_configured_extractor_on_every_taskmaster_turn():
    turns = raw_turns("taskmaster.json")
    out, err = StringIO(), StringIO()
    call_command("bench_chat_gold", stdout=out, stderr=err)
    line = json.loads(out.getvalue().strip().splitlines()[-1])
    assert line["benchmark"] == "chat_gold" and not line["locomo"] and "--locomo" in err.getvalue()
    section = line["by_source"]["taskmaster"]
    assert section["turns"] == len(turns) == line["overall"]["turns"]
    assert section["entities"]["gold"] == sum(len(t["entities"]) for t in turns)
    assert section["preferences"]["gold"] == sum(len(t["preferences"]) for t in turns)
    assert 0 < section["entities"]["matched"] <= section["entities"]["predicted"]
    assert section["entities_typed"]["matched"] <= section["entities"]["matched"]


def test_bench_scores_locomo_turns_from_a_local_copy(tiny_gold):
    gold, locomo, _ = tiny_gold
    out = StringIO()
    call_command("bench_chat_gold", gold=str(gold), locomo=str(locomo), stdout=out)
    line = json.loads(out.getvalue().strip().splitlines()[-1])
    assert line["locomo"] and line["by_source"]["locomo"]["turns"] == 1
    assert line["by_source"]["locomo"]["entities"]["gold"] == 1
    assert line["overall"]["turns"] == len(raw_turns("taskmaster.json")) + 1
    with pytest.raises(CommandError, match="no directory"):
        call_command("bench_chat_gold", gold=str(gold), locomo=str(locomo / "missing"), stdout=StringIO())


def test_typed_precision_leaves_untyped_names_out_and_a_referring_topic_does_not_read_alone():
    said = GoldTurn(id="a", source="one", role="user", context=(), text="", reference_date=None,
                    entities=({"name": "Lisbon", "type": "LOCATION"}, {"name": "Mateus", "type": "PERSON"},
                              {"name": "Nuuk", "type": "LOCATION"}),
                    facts=({"subject": "user", "predicate": "PARTICIPATED_IN", "object": "street dance",
                            "predicate_also": ["LEARNS"]},))
    overall = gold_score(scored=[(said, Extraction(
        entities=[entity("Lisbon", "LOCATION"), entity("Mateus", "UNTYPED"), entity("Nuuk", "PERSON")],
        facts=[fact("user", "LEARNS", "street dance")],
        preferences=[preference("general", "this nearby trail", "positive"),
                     preference("general", "veterans and their rights", "positive"),
                     preference("general", "helping the community and making it a better place", "positive"),
                     preference("general", "the freedom and connection it brings", "positive")]))])["overall"]
    assert overall["entities_typed_names"] == {"precision": 0.5, "recall": 0.3333, "f1": 0.4, "matched": 1,
                                               "predicted": 2, "gold": 3}
    assert overall["entities_untyped_share"] == 0.3333 and overall["entities"]["matched"] == 3
    assert overall["facts"]["matched"] == 1  # a predicate the gold names as as right
    assert overall["preferences_self_contained"] == 0.5


def test_the_memorybank_sample_carries_its_text_licence_and_the_persons_sessions():
    data = json.loads((GOLD / "memorybank.json").read_text())
    turns = data["turns"]
    assert "MIT" in data["licence"] and len(turns) >= 300 and len({t["id"] for t in turns}) == len(turns)
    seen = {}
    for turn in turns:
        earlier = seen.setdefault((turn["person"], turn["date"]), [])
        assert turn["context"] == earlier and turn["text"].strip(), turn["id"]
        earlier.append(turn["id"])
        if turn["role"] == "assistant":
            assert not turn["facts"] and not turn["preferences"], turn["id"]
        for entity in turn["entities"]:
            assert {entity["type"], *entity.get("also", ())} <= set(ENTITY_TYPES), turn["id"]
    assert len({t["person"] for t in turns}) == 5 and sum(len(t["entities"]) for t in turns) >= 60


@pytest.mark.django_db(transaction=True)
def test_bench_replays_a_memorybank_sample_and_judges_every_other_name_the_graph_holds(tmp_path):
    gold = tmp_path / "gold"
    gold.mkdir()

    def turn(n, role, text, entities=()):
        return {"id": f"mb-t-d1-{n}{role[0]}", "round": 7, "person": "Tess", "date": "2023-04-27", "exchange": n,
                "role": role, "context": [], "text": text, "entities": list(entities), "facts": [], "preferences": []}
    turns = [turn(0, "user", "I love the Coastal Water Trust, also known as CWT.",
                  [{"name": "Coastal Water Trust", "type": "ORGANIZATION", "aliases": ["CWT"]}]),
             turn(1, "user", "I went to an LGBTQ support group and later to an LGBTQ conference.")]
    for n, raw in enumerate(turns):
        raw["context"] = [t["id"] for t in turns[:n]]
    (gold / "memorybank.json").write_text(json.dumps({"licence": "MIT", "turns": turns}))
    out = StringIO()
    call_command("bench_chat_gold", gold=str(gold), memorybank=True, graph=True, stdout=out)
    graph = json.loads(out.getvalue().strip().splitlines()[-1])["graph"]
    assert graph["aliases"]["wrong"] == [] and graph["same_meaning_preference_pairs"] == 0
    assert graph["aliases"]["held"] >= 1  # CWT, the Trust's other name, said so by the turn
    assert db.cypher_query("MATCH (n) WHERE n.user_id IS NOT NULL RETURN count(n)")[0][0][0] == 0  # nothing left
    with pytest.raises(CommandError, match="--graph: only"):
        call_command("bench_chat_gold", graph=True, stdout=StringIO())
