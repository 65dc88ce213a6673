"""/healthz names each required service that is down and answers 503."""

import socket

import pytest
from neomodel import db as graph, get_config


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def neo4j_unreachable():
    config = get_config()
    url = config.database_url
    graph.close_connection()
    config.database_url = f"bolt://neo4j:neo4j@127.0.0.1:{_closed_port()}"
    yield
    graph.close_connection()
    config.database_url = url


def test_neo4j_down_is_named(client, db, neo4j_unreachable):
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert "neo4j" in body["down"] and body["status"] == "unavailable"
    assert "ServiceUnavailable" in body["services"]["neo4j"]["error"]
    assert body["services"]["redis"]["ok"] and body["services"]["database"]["ok"]


def test_redis_down_is_named(client, db, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{_closed_port()}/0"
    response = client.get("/healthz")
    assert response.status_code == 503
    assert "redis" in response.json()["down"]


def test_no_worker_is_named(client, db):
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert body["down"] == ["worker"]
    assert "no Celery worker answered" in body["services"]["worker"]["error"]
