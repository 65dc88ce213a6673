"""Memory in a person's words: facts as sentences from the one table of phrasings, a readable fallback,
human names for keys, and dates in the reader's time zone."""

from datetime import UTC, date, datetime

from django.utils import timezone

from memory.wording import (CATEGORY_LABELS, PHRASES, category_label, entity_type_label, fact_sentence,
                            predicate_words, provenance)
from memory.extraction.openai_extractor import RELATION_TYPES
from memory.models import CATEGORIES


def test_a_fact_reads_as_a_sentence_about_you_or_about_someone():
    assert fact_sentence(subject="user", predicate="RESIDES_AT", object="Porto",
                         valid_from=date(2026, 11, 12)) == "You live in Porto since 12 Nov 2026"
    assert fact_sentence(subject="Marta Ribeiro", predicate="EMPLOYED_BY", object="Acme Corp") == \
        "Marta Ribeiro works at Acme Corp"
    assert fact_sentence(subject="Marta", predicate="KNOWS", object="user") == "Marta knows you"
    assert fact_sentence(subject="user", predicate="EMPLOYED_BY", object="Globex", person="the person") == \
        "The person works at Globex"


def test_a_fact_that_stopped_holding_reads_in_the_past_with_its_span():
    replaced = fact_sentence(subject="user", predicate="EMPLOYED_BY", object="Acme Corp", status="superseded",
                             valid_from=datetime(2026, 10, 6, 9, 30, tzinfo=UTC), valid_until=date(2026, 11, 10))
    assert replaced == "You worked at Acme Corp from 6 Oct 2026 until 10 Nov 2026"
    assert fact_sentence(subject="user", predicate="HAS_SHOE_SIZE", object="42", status="retracted") == \
        "Your shoe size was 42"


def test_a_predicate_without_a_phrasing_reads_as_its_words():
    assert fact_sentence(subject="Ticket 7", predicate="HAS_PRIORITY", object="high") == "Ticket 7’s priority is high"
    assert fact_sentence(subject="user", predicate="LIKES_TO_CLIMB", object="rocks") == "You like to climb rocks"
    assert fact_sentence(subject="user", predicate="WATCHES", object="jazz films") == "You watch jazz films"
    assert fact_sentence(subject="user", predicate="IS_ALLERGIC_TO", object="nuts") == "You are allergic to nuts"
    assert fact_sentence(subject="Ana", predicate="LIKES_TO_CLIMB", object="rocks") == "Ana likes to climb rocks"
    assert predicate_words("SPONSORED_BY") == "sponsored by"


def test_every_relation_the_extractors_write_has_a_phrasing_and_every_key_a_label():
    assert set(RELATION_TYPES) <= PHRASES.keys()
    assert set(CATEGORIES) == CATEGORY_LABELS.keys()
    assert [category_label(c) for c in CATEGORIES] == ["Conversation history", "Long-term memory", "Reasoning traces"]
    assert entity_type_label("ORGANIZATION") == "organisation"
    assert entity_type_label("UNTYPED") == "not sure what kind"


def test_a_moment_reads_as_its_day_in_the_readers_time_zone():
    late = datetime(2026, 11, 12, 23, 30, tzinfo=UTC)
    with timezone.override("Asia/Tokyo"):
        assert fact_sentence(subject="user", predicate="RESIDES_AT", object="Osaka", valid_from=late) == \
            "You live in Osaka since 13 Nov 2026"


def test_who_corrected_reads_in_words():
    names = {"demo-assistant": "Demo assistant"}
    assert provenance("agent demo-assistant, accepted by the person", agent_names=names) == \
        "Demo assistant, accepted by you"
    assert provenance("reviewer ana@example.com", agent_names={}) == "a reviewer (ana@example.com)"
    assert provenance("agent gone", agent_names={}, person="the person") == "an agent that was removed"
