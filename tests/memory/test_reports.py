"""What work turns report, read as facts (memory.extraction.offline.reports): sentences written for these tests,
in trades the context-graph scenarios do not cover."""

from datetime import date

import pytest

from memory.extraction.offline import OfflineExtractor


def facts(text, **kwargs):
    return {(f.subject, f.predicate, f.object) for f in OfflineExtractor().extract(text=text, **kwargs).facts}


@pytest.mark.parametrize(("text", "fact"), [
    ("QA flagged that CheckoutService has no integration tests.", ("CheckoutService", "HAS_INTEGRATION_TESTS", "none")),
    ("The architect decided the billing service will use Kafka for events.", ("billing service", "USES", "Kafka")),
    ("Ops set the session timeout to 30 minutes.", ("session timeout", "IS", "30 minutes")),
    ("Nadia set the gateway's rate limit to 500 requests.", ("gateway", "HAS_RATE_LIMIT", "500 requests")),
    ("Support re-classified Case_881's severity as low after a call.", ("Case_881", "HAS_SEVERITY", "low")),
    ("Priya traced the outage to a DNS misconfiguration.", ("outage", "TRACED_TO", "DNS misconfiguration")),
    ("Marco assigned the schema migration to Team_Data.", ("schema migration", "ASSIGNED_TO", "Team_Data")),
    ("The lead put Jonas in charge of the release checklist.", ("Jonas", "IN_CHARGE_OF", "release checklist")),
    ("We moved the design review to Friday.", ("design review", "SCHEDULED_FOR", "Friday")),
    ("Legal confirmed the NDA_2024 is owned by the Contracts_Team.", ("NDA_2024", "OWNED_BY", "Contracts_Team")),
    ("Finance reported that Invoice_12 has an outstanding amount of $3,200.",
     ("Invoice_12", "HAS_OUTSTANDING_AMOUNT", "$3,200")),
    ("The editor published the guide with the headline 'Ship Faster'.", ("guide", "HAS_HEADLINE", "Ship Faster")),
    ("Tests show that Gateway_EU is returning 502 errors.", ("Gateway_EU", "IS_RETURNING", "502 errors")),
    ("Sam noted the importer relies on the Vendor_Feed dataset.", ("importer", "RELIES_ON", "Vendor_Feed")),
    ("Ravi confirmed BillingAPI was OWNED_BY the Payments_Guild.", ("BillingAPI", "OWNED_BY", "Payments_Guild")),
    ("Update: Search_Indexer is down again.", ("Search_Indexer", "IS", "down")),
    # any verb of a name, a value given to any thing, what an identifier is, a heading of a few words
    ("Coach_Ibarra trains at the Northside_Leisure_Centre.", ("Coach_Ibarra", "TRAINS_AT", "Northside_Leisure_Centre")),
    ("The water bill comes to £61.40 a month.", ("water bill", "COMES_TO", "£61.40 a month")),
    ("The locker code is 4471B.", ("locker code", "IS", "4471B")),
    ("The lease's break clause ends in March.", ("lease's break clause", "ENDS_IN", "March")),
    ("Our train now departs at 07:52.", ("train", "DEPARTS_AT", "07:52")),
    ("Plan B: the coach now leaves at 16:05.", ("coach", "LEAVES_AT", "16:05")),
    ("Villa_Mirto is in the hills above Lucca.", ("Villa_Mirto", "IS_IN", "hills above Lucca")),
])
def test_a_work_report_states_a_fact_that_reads_as_a_line(text, fact):
    assert fact in facts(text)


@pytest.mark.parametrize("text", [
    "We might set the timeout to 10 minutes.",
    "I'll assign the ticket to Sam tomorrow.",
    "Ops did not set the timeout to 30 minutes.",
    "Nobody confirmed whether Gateway_EU depends on Redis.",
    "I found a great recipe for lasagna.",
    "My sister said she loves the new cafe.",
    "I made a limited edition line last week to show off my style.",
    "We raised awareness and funds at the event for the cause.",
    "Ottilie signed with Granary Films last week.",
    "Is the build still depending on the old runner?",
    "Hey Caroline, Melanie is ready now.",
    "The kids loved the beach.",
    "The weather was lovely all week.",
])
def test_hedged_negated_future_asked_or_personal_talk_reports_nothing(text):
    assert {f for f in facts(text) if f[1] not in ("EMPLOYED_BY", "USES")} == set()


def test_a_value_set_later_replaces_the_one_reported_first():
    first = OfflineExtractor().extract(text="Intake logged that Ticket_9 has priority level high.").facts
    later = OfflineExtractor().extract(text="Triage re-classified Ticket_9's priority level as critical.").facts
    (high,), (critical,) = first, later
    assert (high.subject, high.predicate, high.object) == ("Ticket_9", "HAS_PRIORITY_LEVEL", "high")
    assert (critical.subject, critical.predicate, critical.object) == ("Ticket_9", "HAS_PRIORITY_LEVEL", "critical")
    assert high.cardinality == critical.cardinality == "single"


def test_a_value_set_on_a_thing_is_one_at_a_time():
    (timeout,) = OfflineExtractor().extract(text="Ops set the session timeout to 30 minutes.").facts
    assert timeout.cardinality == "single"


def test_a_date_inside_the_value_is_not_when_the_fact_began():
    (moved,) = OfflineExtractor().extract(text="Site lead moved the roof inspection to 12 March.").facts
    assert moved.object == "12 March" and moved.valid_from is None
    (due,) = OfflineExtractor().extract(text="Pepper's rabies jab is due in May.", reference_date=date(2026, 1, 5)).facts
    assert due.object == "due in May" and due.valid_from is None


def test_what_the_relation_rules_read_is_not_read_again_by_any_verb():
    assert facts("Kestrel Labs acquired Finch Robotics in 2023.") == {("Finch Robotics", "SUBSIDIARY_OF", "Kestrel Labs")}
