"""`manage.py reextract` goes through the extraction outbox: it answers with the broker down, and Beat queues the work.

No worker runs in this module: what is queued stays on the suite's broker, and the tests run the task
in-process (`apply`) where a worker would.
"""

import time
from io import StringIO

import pytest
from django.core.management import call_command

from memory import services
from memory.tasks import message_extract
from portal.outbox import work_redispatch
from tests.support.outbox import append, broker_down, derived, extraction_queue, statuses

pytestmark = pytest.mark.django_db


def _extracted(client, user_id: str, content: str) -> str:
    """Append a message with the broker down (so it was never queued) and extract it as a worker would."""
    with broker_down():
        uid = append(client, user_id, content, "m-1").json()["results"][0]["uid"]
    assert message_extract.apply(args=(uid, user_id)).get() == "done"
    return uid


def test_with_the_broker_down_reextract_answers_and_beat_queues_the_messages_once_it_is_back(
        granted, make_subject):
    subject, agent, client = granted
    other = make_subject()
    services.grant_create(subject=other, agent=agent)
    uid = _extracted(client, subject.user_id, "I live in Lisbon.")
    _extracted(client, other.user_id, "I live in Porto.")
    once = derived(subject.user_id)
    assert once["Fact:nodes"] >= 1

    out = StringIO()
    with broker_down():
        started = time.monotonic()
        call_command("reextract", user=subject.user_id, status="done", stdout=out)
        elapsed = time.monotonic() - started
        assert work_redispatch(delay_seconds=0)["extractions"] == 0  # still down: it stays in the outbox
    assert elapsed < 5, elapsed  # `.delay()` blocked on the broker: a functional bound, not a benchmark
    assert out.getvalue() == "Queued 0 of 1 messages for extraction; the rest are pending until the broker is back.\n"
    assert statuses(subject.user_id) == {"I live in Lisbon.": "pending"}
    assert statuses(other.user_id) == {"I live in Porto.": "done"}  # only the person asked for

    before = extraction_queue()
    assert work_redispatch(delay_seconds=0)["extractions"] == 1
    assert extraction_queue() == before + 1
    assert message_extract.apply(args=(uid, subject.user_id)).get() == "done"
    assert statuses(subject.user_id) == {"I live in Lisbon.": "done"}
    assert derived(subject.user_id) == once  # extracted again, nothing twice
    assert work_redispatch(delay_seconds=0)["extractions"] == 0


def test_with_the_broker_up_reextract_queues_at_once(granted):
    subject, _, client = granted
    _extracted(client, subject.user_id, "I live in Lisbon.")
    before = extraction_queue()
    out = StringIO()
    call_command("reextract", user=subject.user_id, status="done", stdout=out)
    assert out.getvalue() == "Queued 1 of 1 messages for extraction.\n"
    assert extraction_queue() == before + 1
    assert statuses(subject.user_id) == {"I live in Lisbon.": "pending"}
