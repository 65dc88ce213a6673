from datetime import date

import pytest
from django.test import override_settings

from memory.extraction import Turn, get_extractor
from memory.extraction.openai_extractor import OpenAIExtractor
from tests.openai_server import OpenAIStub


@pytest.fixture
def openai_stub():
    with OpenAIStub() as stub, override_settings(
        OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=stub.url, EXTRACTOR="", OPENAI_EXTRACTION_MODEL="stub-model",
    ):
        yield stub


def test_extracts_through_the_real_sdk_with_a_json_schema(openai_stub):
    text = "Marta Kowalski joined Fjord Systems in 2021. I prefer green tea."
    extractor = get_extractor()
    assert isinstance(extractor, OpenAIExtractor)
    context = [Turn(role="user", content="Earlier we talked about Bergen."), Turn(role="assistant", content="Yes, Bergen.")]
    result = extractor.extract(text=text, context=context, reference_date=date(2026, 1, 5))

    request = openai_stub.requests[-1]
    assert request["path"] == "/v1/chat/completions" and request["authorization"] == "Bearer sk-test"
    body = request["body"]
    assert body["model"] == "stub-model"
    assert body["response_format"]["type"] == "json_schema" and body["response_format"]["json_schema"]["strict"] is True
    assert "Reference date: 2026-01-05" in body["messages"][-1]["content"]
    assert "Earlier turns, oldest first:\n[user] Earlier we talked about Bergen.\n[assistant] Yes, Bergen.\n" in body["messages"][-1]["content"]
    assert "Sent by: user\nMessage:\n" + text in body["messages"][-1]["content"]

    assert {(e.name, e.type) for e in result.entities} == {("Marta Kowalski", "PERSON"), ("Fjord Systems", "ORGANIZATION")}
    for entity in result.entities:
        assert [text[m.start:m.end] for m in entity.mentions] == [entity.name]
    assert [(r.source, r.type, r.target) for r in result.relations] == [("Marta Kowalski", "EMPLOYED_BY", "Fjord Systems")]
    fact = result.facts[0]
    assert (fact.predicate, fact.cardinality, fact.valid_from) == ("EMPLOYED_BY", "single", date(2021, 1, 1))
    assert [(p.category, p.preference, p.topic, p.polarity) for p in result.preferences] == [
        ("food", "green tea", "green tea", "positive"),
    ]
    assert result.extractor == "openai"


def test_a_negated_link_the_model_returns_is_dropped(openai_stub):
    result = get_extractor().extract(text="Marta Kowalski did not join Fjord Systems.")
    assert result.relations == [] and result.facts == []
    assert len(result.entities) == 2
    kept = get_extractor().extract(text="Marta Kowalski did not hesitate. She joined Fjord Systems.")
    assert [r.type for r in kept.relations] == ["EMPLOYED_BY"]


def test_answers_naming_unknown_entities_or_types_are_dropped():
    with override_settings(OPENAI_API_KEY="sk-test", OPENAI_BASE_URL="http://127.0.0.1:9/v1"):
        extractor = OpenAIExtractor()
    payload = {
        "entities": [
            {"name": "Ada Byron", "type": "PERSON", "aliases": ["Ada"], "mentions": ["Ada", "Countess"]},
            {"name": "Ada Byron", "type": "PERSON", "aliases": [], "mentions": []},
        ],
        "relations": [{"source": "Ada Byron", "type": "EMPLOYED_BY", "target": "Nobody Ltd", "confidence": 3}],
        "facts": [{"subject": "user", "predicate": "lives in", "object": "Leeds", "valid_from": "soon"}],
        "preferences": [],
    }
    with override_settings(SINGLE_VALUED_PREDICATES=["LIVES_IN"]):
        result = extractor._parse(payload, text="Ada Byron wrote; Ada smiled.")
    assert len(result.entities) == 1
    assert [(m.text, m.start) for m in result.entities[0].mentions] == [("Ada Byron", 0), ("Ada", 17)]
    assert result.relations == []
    assert (result.facts[0].predicate, result.facts[0].cardinality, result.facts[0].valid_from) == ("LIVES_IN", "single", None)


def test_the_stub_serves_embeddings_to_the_sdk_embedder(openai_stub):
    from memory.embeddings import OpenAIEmbedder

    with override_settings(OPENAI_EMBEDDING_DIMENSIONS=16):
        vectors = OpenAIEmbedder().embed(["alpha", "beta", "alpha"])
    assert vectors.shape == (3, 16)
    assert float(vectors[0] @ vectors[2]) == pytest.approx(1.0) and float(vectors[0] @ vectors[1]) < 0.99


def test_the_prompt_names_the_sender_and_an_assistant_states_nothing_about_the_person(openai_stub):
    context = [Turn(role="user", content="I live in Lisbon.")]
    result = get_extractor().extract(
        text="Nice! Marta Kowalski joined Fjord Systems. I prefer green tea.", role="assistant", context=context,
    )
    prompt = openai_stub.requests[-1]["body"]["messages"][-1]["content"]
    assert "[user] I live in Lisbon." in prompt and "Sent by: assistant\nMessage:\n" in prompt
    assert "assistant's \"I live in Porto\" states nothing about the user" in openai_stub.requests[-1]["body"]["messages"][0]["content"]
    assert result.preferences == []  # the stub, like a careless model, returned the assistant's own preference
    assert [(r.source, r.type, r.target) for r in result.relations] == [("Marta Kowalski", "EMPLOYED_BY", "Fjord Systems")]


def test_a_speaker_label_names_the_sender_and_is_no_part_of_the_message(openai_stub):
    context = [Turn(role="assistant", content="Melanie: How was the week?")]
    text = "Caroline: Marta Kowalski joined Fjord Systems."
    result = get_extractor().extract(text=text, context=context)
    prompt = openai_stub.requests[-1]["body"]["messages"][-1]["content"]
    assert "[assistant (Melanie)] How was the week?" in prompt
    assert prompt.endswith("Sent by: user (Caroline)\nMessage:\nMarta Kowalski joined Fjord Systems.")
    assert all(text[m.start:m.end] == e.name for e in result.entities for m in e.mentions)


@pytest.mark.parametrize(("role", "kept"), [("user", 1), ("assistant", 0), ("tool", 0)])
def test_facts_and_preferences_about_the_user_count_only_when_the_user_spoke(role, kept):
    with override_settings(OPENAI_API_KEY="sk-test", OPENAI_BASE_URL="http://127.0.0.1:9/v1"):
        extractor = OpenAIExtractor()
    payload = {
        "entities": [{"name": "Porto", "type": "LOCATION", "aliases": [], "mentions": ["Porto"]}],
        "relations": [],
        "facts": [{"subject": " I ", "predicate": "RESIDES_AT", "object": "Porto", "valid_from": "2025-03-03"},
                  {"subject": "Porto", "predicate": "LOCATED_IN", "object": "Portugal", "valid_from": None}],
        "preferences": [{"category": "Food", "preference": "doesn't eat meat", "topic": " The Meat.", "polarity": "negative"}],
    }
    result = extractor._parse(payload, text="I live in Porto since 3 March 2025 and I don't eat meat.", role=role)
    assert [f.subject for f in result.facts] == ["user"] * kept + ["Porto"]
    assert [(p.category, p.topic, p.polarity) for p in result.preferences] == [("food", "meat", "negative")] * kept
