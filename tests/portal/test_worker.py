"""A real Celery worker, in its own process, over the real Redis broker (not eager mode)."""

from portal.tasks import graph_ping
from wiring.celery import app


def test_task_runs_in_a_real_worker_that_reaches_neo4j(celery_worker_process):
    assert not app.conf.task_always_eager
    result = graph_ping.delay()
    info = result.get(timeout=30)
    assert info["edition"] == "community" and info["version"].startswith("5.26")
    assert result.successful()


def test_healthz_is_ok_with_every_service_up(client, celery_worker_process, db):
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok" and body["down"] == []
    assert set(body["services"]) == {"neo4j", "redis", "database", "broker", "worker"}
    assert body["services"]["neo4j"]["version"].startswith("5.26")
    assert body["services"]["worker"]["workers"]
