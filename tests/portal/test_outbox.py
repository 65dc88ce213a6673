"""Accepted work has an outbox: a broker that is down costs no error and loses nothing, the Beat task
queues what waits, a re-dispatch racing the first task runs nothing twice, and stuck work is reported.

No worker runs in this module: tasks queued on the suite's broker stay there, and the tests run them
in-process (`apply`) where a worker would.
"""

import time
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from governance import services as governance_services
from governance.models import ErasureJob, ErasureScope, ExportJob, JobStatus
from governance.tasks import export_build_task, subject_erase_task
from memory.tasks import message_extract
from portal.outbox import work_claim, work_redispatch
from portal.redis_clients import broker_redis
from tests.support.outbox import append, broker_down, derived, extraction_queue, mine, statuses
from tests.support.stack import neo4j_unreachable

pytestmark = pytest.mark.django_db


def test_with_the_broker_down_an_append_answers_at_once_with_extraction_pending(granted):
    subject, _, client = granted
    with broker_down():
        started = time.monotonic()
        response = append(client, subject.user_id, "I live in Lisbon.", "m-1")
        elapsed = time.monotonic() - started
    assert response.status_code == 201, response.content
    assert elapsed < 5, elapsed  # it blocked 19 s before the outbox: a functional bound, not a benchmark
    result = response.json()["results"][0]
    assert result["stored"] and result["extraction"] == "pending"
    assert statuses(subject.user_id) == {"I live in Lisbon.": "pending"}
    # A retry by the agent is a duplicate: the message was kept, and its extraction with it.
    again = append(client, subject.user_id, "I live in Lisbon.", "m-1").json()
    assert again["stored"] == 0 and again["results"][0]["reason"] == "duplicate"


def test_the_beat_task_queues_waiting_extractions_once_and_never_done_ones(granted):
    subject, _, client = granted
    with broker_down():
        uid = append(client, subject.user_id, "I live in Lisbon.", "m-1").json()["results"][0]["uid"]
        assert work_redispatch(delay_seconds=0)["extractions"] == 0  # still down: it stays in the outbox
    assert work_redispatch()["extractions"] == 0  # younger than WORK_DISPATCH_DELAY_SECONDS: not yet
    before = extraction_queue()
    assert work_redispatch(delay_seconds=0)["extractions"] == 1
    assert extraction_queue() == before + 1
    assert work_redispatch(delay_seconds=0)["extractions"] == 0  # still in the queue: not queued again
    assert message_extract.apply(args=(uid, subject.user_id)).get() == "done"
    assert work_redispatch(delay_seconds=0)["extractions"] == 0
    assert statuses(subject.user_id) == {"I live in Lisbon.": "done"}


def test_work_still_in_the_queue_is_not_queued_again_however_long_it_waits(granted):
    subject, _, client = granted
    broker_redis().delete("extraction")  # what earlier tests left queued, with no worker to take it
    uids = [append(client, subject.user_id, f"note {n}", f"m-{n}").json()["results"][0]["uid"] for n in range(3)]
    assert work_redispatch(delay_seconds=0)["extractions"] == 0  # no worker has taken any
    assert extraction_queue() == 3

    taken = broker_redis().rpop("extraction")  # a worker takes the oldest message, claims its item and dies
    with work_claim(kind="extractions", key=uids[0], holder="killed-task"):
        assert work_redispatch(delay_seconds=0)["extractions"] == 0  # running: its claim holds
    assert b"note 0" not in taken and uids[0].encode() in taken
    assert work_redispatch(delay_seconds=0)["extractions"] == 1  # its claim gone, its message gone: lost
    broker_redis().rpop("extraction")  # the next message is lost on its way to a worker: taken, never claimed
    assert work_redispatch(delay_seconds=0)["extractions"] == 1  # queued before the oldest still queued: lost

    broker_redis().delete("extraction")  # the broker restarted without persistence: everything queued is gone
    assert work_redispatch(delay_seconds=0)["extractions"] == 3
    assert extraction_queue() == 3 and work_redispatch(delay_seconds=0)["extractions"] == 0


def test_a_redispatch_racing_the_first_task_extracts_once(granted):
    subject, _, client = granted
    with broker_down():
        result = append(client, subject.user_id, "I work at Northwind Traders in Porto.", "m-1").json()["results"][0]
    uid, user_id = result["uid"], subject.user_id
    with work_claim(kind="extractions", key=uid, holder="first-task") as claimed:  # a first task is running it
        assert claimed
        assert work_redispatch(delay_seconds=0)["extractions"] == 0  # a claimed item is not queued again
        assert message_extract.apply(args=(uid, user_id)).get() == "running"
        assert statuses(user_id) == {"I work at Northwind Traders in Porto.": "pending"}
    assert work_redispatch(delay_seconds=0)["extractions"] == 1
    assert message_extract.apply(args=(uid, user_id)).get() == "done"
    once = derived(user_id)
    assert once["Entity:nodes"] >= 1 and once["Fact:nodes"] >= 1
    assert message_extract.apply(args=(uid, user_id)).get() == "done"
    assert derived(user_id) == once


def test_a_task_delivered_again_after_its_worker_died_takes_its_claim_back(granted):
    subject, _, client = granted
    with broker_down():
        uid = append(client, subject.user_id, "I live in Lisbon.", "m-1").json()["results"][0]["uid"]
    with work_claim(kind="extractions", key=uid, holder="task-1"):  # its worker was killed holding it
        assert message_extract.apply(args=(uid, subject.user_id), task_id="task-2").get() == "running"
        assert message_extract.apply(args=(uid, subject.user_id), task_id="task-1").get() == "done"
    assert statuses(subject.user_id) == {"I live in Lisbon.": "done"}


def test_exports_and_erasures_requested_with_the_broker_down_are_queued_when_it_is_back(
        make_subject, django_capture_on_commit_callbacks):
    exporter, eraser = make_subject(), make_subject()
    with broker_down(), django_capture_on_commit_callbacks(execute=True):
        export = governance_services.export_request(subject=exporter)
        erasure = governance_services.erasure_request(subject=eraser, scope=ErasureScope.ALL)
    assert mine(work_redispatch(delay_seconds=0)) == {"extractions": 0, "exports": 1, "erasures": 1}
    export_build_task.apply(args=(export.pk,))
    subject_erase_task.apply(args=(erasure.pk,))
    assert ExportJob.objects.get(pk=export.pk).status == JobStatus.DONE
    assert ErasureJob.objects.get(pk=erasure.pk).status == JobStatus.DONE
    assert mine(work_redispatch(delay_seconds=0)) == {"extractions": 0, "exports": 0,
                                                                              "erasures": 0}


def test_work_status_and_healthz_report_stuck_work_without_content(granted, client, settings):
    subject, _, api = granted
    uid = append(api, subject.user_id, "My passport number is K1234567.", "m-1").json()["results"][0]["uid"]
    out = StringIO()
    call_command("work_status", stdout=out)  # one minute old at most: waiting, not stuck
    assert out.getvalue().split("\n")[0].split()[:5] == ["extractions", "1", "waiting", "0", "stuck"]
    with pytest.raises(CommandError) as stuck:
        call_command("work_status", stuck_seconds=0, stdout=StringIO())
    assert stuck.value.returncode == 1 and "1 extractions" in str(stuck.value)

    settings.WORK_STUCK_SECONDS = 0
    response = client.get("/healthz")
    body = response.json()
    assert "extractions" in body["stuck"] and "exports" not in body["stuck"]
    assert body["work"]["extractions"]["waiting"] == 1 and body["work"]["exports"]["waiting"] == 0
    assert uid not in response.content.decode() and "K1234567" not in response.content.decode()


def test_work_status_exits_2_when_the_graph_cannot_tell(db):
    with neo4j_unreachable(), pytest.raises(CommandError) as unknown:
        call_command("work_status", stdout=StringIO())
    assert unknown.value.returncode == 2 and "extractions" in str(unknown.value)
