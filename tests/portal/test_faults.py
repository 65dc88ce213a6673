"""Faults with the real services: the broker killed under a real worker loses nothing, Neo4j SIGKILLed
during appends loses and doubles nothing, and the app's Redis stopped gives every API endpoint family a
JSON answer (never an HTML 500)."""

import os
import signal
import time
from pathlib import Path

import pytest
from django.test import override_settings
from neomodel import db

from governance import services as governance_services
from governance.models import ExportJob, JobStatus
from memory import services
from portal import graphdb
from portal.outbox import work_redispatch
from portal.tasks import work_redispatch_task
from wiring.celery import app
from tests.support.outbox import append, broker_at, mine, statuses
from tests.support.redis import RedisServer

# The worker reads the rows these tests write, so they are committed.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def own_broker(tmp_path_factory):
    """A redis-server as the broker of this process and of the module's worker, so it can be killed."""

    server = RedisServer(tmp_path_factory.mktemp("broker"))
    server.start()
    with pytest.MonkeyPatch.context() as patch, broker_at(server.url):
        patch.setenv("CELERY_BROKER_URL", server.url)  # the worker started after this reads it
        yield server
    if server.proc.poll() is None:
        server.kill()


def wait_for(condition, timeout=60, every=0.2):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(every)


def test_broker_killed_under_a_worker_loses_no_accepted_work(own_broker, celery_worker_process, granted, client,
                                                             settings):
    subject, _, api = granted
    user_id = subject.user_id
    assert append(api, user_id, "I live in Lisbon.", "m-1").json()["results"][0]["extraction"] == "queued"
    wait_for(lambda: statuses(user_id) == {"I live in Lisbon.": "done"})

    own_broker.kill()
    started = time.monotonic()
    accepted = [append(api, user_id, text, f"m-{n}") for n, text in
                enumerate(["I moved to Porto.", "I work at Northwind Traders."], start=2)]
    assert time.monotonic() - started < 10  # two appends; each blocked 19 s before the outbox
    assert [r.status_code for r in accepted] == [201, 201]
    assert [r.json()["results"][0]["extraction"] for r in accepted] == ["pending", "pending"]
    export = governance_services.export_request(subject=subject)  # queued on commit: the broker refuses it
    assert ExportJob.objects.get(pk=export.pk).status == JobStatus.QUEUED
    assert mine(work_redispatch(delay_seconds=0)) == {"extractions": 0, "exports": 0, "erasures": 0}

    own_broker.start()  # empty: whatever it held is gone, as after a restart without persistence
    wait_for(lambda: app.control.ping(timeout=0.5), timeout=60, every=0.5)  # the worker is back on it
    settings.WORK_STUCK_SECONDS = 0
    health = client.get("/healthz").json()
    assert health["status"] == "degraded" and set(health["stuck"]) >= {"exports", "extractions"}
    assert health["work"]["extractions"]["waiting"] == 2 and health["work"]["exports"]["waiting"] == 1

    with override_settings(WORK_DISPATCH_DELAY_SECONDS=0):
        assert mine(work_redispatch_task.apply().get()) == {"extractions": 2, "exports": 1, "erasures": 0}
    wait_for(lambda: set(statuses(user_id).values()) == {"done"})
    wait_for(lambda: ExportJob.objects.get(pk=export.pk).status == JobStatus.DONE)
    health = client.get("/healthz")
    assert health.status_code == 200 and health.json()["status"] == "ok"

    rows, _ = db.cypher_query(
        "MATCH (c:Conversation {user_id: $u})-[:FIRST_MESSAGE]->(first) "
        "MATCH p = (first)-[:NEXT_MESSAGE*0..]->(last) WHERE NOT (last)-[:NEXT_MESSAGE]->() "
        "RETURN [m IN nodes(p) | m.content]", {"u": user_id})
    assert rows == [[["I live in Lisbon.", "I moved to Porto.", "I work at Northwind Traders."]]]
    facts, _ = db.cypher_query("MATCH (f:Fact {user_id: $u}) RETURN f.object, count(*) ORDER BY f.object",
                               {"u": user_id})
    assert [count for _, count in facts] == [1] * len(facts)
    assert {"Lisbon", "Porto", "Northwind Traders"} <= {value for value, _ in facts}


def test_with_the_app_redis_down_every_api_family_answers_json(granted, app_redis_server):
    subject, agent, api = granted
    user_id = subject.user_id
    stored = services.messages_append(subject=subject, agent=agent, session_id="s1",
                                      messages=[{"role": "user", "content": "I live in Lisbon."}])
    message = stored[0]["uid"]
    trace = services.trace_start(subject=subject, agent=agent, session_id="s1", task="find a flat")["uid"]
    app_redis_server.kill()

    calls = {
        "context": api.post("/api/v1/context", {"user_id": user_id, "query": "Where do I live?"}, format="json"),
        "append": append(api, user_id, "I moved to Porto.", "m-2"),
        "trace start": api.post("/api/v1/traces", {"user_id": user_id, "session_id": "s1", "task": "x"},
                                format="json"),
        "trace step": api.post(f"/api/v1/traces/{trace}/steps", {"user_id": user_id, "thought": "look"},
                               format="json"),
        "trace complete": api.post(f"/api/v1/traces/{trace}/complete",
                                   {"user_id": user_id, "outcome": "found", "success": True}, format="json"),
        "item list": api.get(f"/api/v1/users/{user_id}/messages/"),
        "item get": api.get(f"/api/v1/users/{user_id}/messages/{message}"),
        "item delete": api.delete(f"/api/v1/users/{user_id}/traces/{trace}"),
        "knowledge": api.post("/api/v1/knowledge/search", {"profile": "no-such-profile", "query": "battery"},
                              format="json"),
        "no route": api.get("/api/v1/nowhere"),
    }
    for family, response in calls.items():
        assert response["Content-Type"] == "application/json", (family, response.status_code, response.content)
        assert response.status_code < 500 or response.status_code == 503, (family, response.status_code)
        if response.status_code == 503:
            assert response.json()["extra"] == {"service": "redis"}, family
    assert calls["append"].status_code == 503 and calls["context"].status_code == 200


def test_neo4j_killed_during_appends_loses_and_doubles_nothing(granted, launched):
    env, run = launched
    subject, _, api = granted
    accepted, refused = [], 0
    with override_settings(NEO4J_URL=f"bolt://neo4j:launcher-secret@127.0.0.1:{env['NEO4J_BOLT_PORT']}"):
        db.close_connection()
        graphdb.configure()
        try:
            for n in range(16):
                if n == 8:  # SIGKILLed, as in a crash: the next append is refused, then Neo4j starts again
                    pid = int((Path(env["NEO4J_HOME"]) / "launcher.pid").read_text())
                    os.kill(pid, signal.SIGKILL)
                    wait_for(lambda: not Path(f"/proc/{pid}").exists(), timeout=30, every=0.1)
                    down = append(api, subject.user_id, f"note {n}", f"n-{n}")
                    assert down.status_code == 503 and down.json()["extra"] == {"service": "neo4j"}
                    assert "nothing was changed" in down.json()["message"]
                    run("start")  # it may give up waiting before a loaded machine has recovered the store
                    wait_for(_graph_answers, timeout=300, every=1)
                for _ in range(10):  # an agent retries what was refused, with the same client id
                    response = append(api, subject.user_id, f"note {n}", f"n-{n}")
                    if response.status_code in (200, 201):
                        accepted.append(f"n-{n}")
                        break
                    assert response.status_code in (409, 503), response.content
                    refused += 1
            rows, _ = db.cypher_query(
                "MATCH (c:Conversation {user_id: $u})-[:FIRST_MESSAGE]->(first) "
                "MATCH p = (first)-[:NEXT_MESSAGE*0..]->(last) WHERE NOT (last)-[:NEXT_MESSAGE]->() "
                "RETURN [m IN nodes(p) | m.client_id], COUNT { (c)-[:HAS_MESSAGE]->() }", {"u": subject.user_id})
        finally:
            db.close_connection()
    graphdb.configure()
    [(chain, messages)] = rows
    assert chain == accepted == [f"n-{n}" for n in range(16)] and messages == 16, (chain, refused)


def _graph_answers() -> bool:
    try:
        return graphdb.scalar("RETURN 1 AS up") == 1
    except Exception:  # still recovering
        db.close_connection()
        return False
