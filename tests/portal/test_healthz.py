"""/healthz names each required service that is down and answers 503."""

from tests.support.stack import closed_port, neo4j_unreachable


def test_neo4j_down_is_named(client, db):
    with neo4j_unreachable():
        response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert "neo4j" in body["down"] and body["status"] == "unavailable"
    assert "ServiceUnavailable" in body["services"]["neo4j"]["error"]
    assert body["services"]["redis"]["ok"] and body["services"]["database"]["ok"]


def test_redis_down_is_named(client, db, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{closed_port()}/0"
    response = client.get("/healthz")
    assert response.status_code == 503
    assert "redis" in response.json()["down"]


def test_no_worker_is_named(client, db):
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert body["down"] == ["worker"]
    assert "no Celery worker answered" in body["services"]["worker"]["error"]


def test_broker_down_is_named_and_the_workers_are_not_blamed(client, db, monkeypatch):
    from wiring.celery import app

    closed = f"redis://127.0.0.1:{closed_port()}/0"
    monkeypatch.setenv("CELERY_BROKER_URL", closed)  # what Celery reads first, then its own settings
    monkeypatch.setitem(app.conf, "broker_write_url", closed)
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503 and body["down"] == ["broker"]
    assert body["services"]["worker"] == {"ok": None, "error": "not known while the broker is down"}
