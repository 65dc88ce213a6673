"""The outbox as tests drive it: the broker pointed elsewhere or nowhere, appends that name their client id, and
what the person's messages and derived memory look like afterwards."""

import contextlib

from django.test import override_settings
from neomodel import db

from portal.redis_clients import broker_redis
from tests.support.stack import closed_port
from wiring.celery import app


@contextlib.contextmanager
def broker_at(url: str):
    """Point this process's Celery producers (and the broker scans) at another broker for the block."""
    previous = app.conf.broker_write_url, app.conf.broker_read_url
    with override_settings(CELERY_BROKER_URL=url):
        _connections_to(url, url)
        try:
            yield
        finally:
            _connections_to(*previous)


def _connections_to(write_url: str, read_url: str) -> None:
    # broker_url itself cannot be changed once read from Django's settings; these take precedence over it.
    app.conf.update(broker_write_url=write_url, broker_read_url=read_url)
    app._pool = None  # as Celery does after a fork: the next publish connects anew
    app.amqp._producer_pool = None


def broker_down():
    return broker_at(f"redis://127.0.0.1:{closed_port()}/0")


def append(client, user_id, content, client_message_id, session="s1"):
    return client.post(f"/api/v1/conversations/{session}/messages", {"user_id": user_id, "messages": [
        {"role": "user", "content": content, "client_message_id": client_message_id}]}, format="json")


def statuses(user_id) -> dict[str, str]:
    rows, _ = db.cypher_query("MATCH (m:Message {user_id: $u}) RETURN m.content, m.extraction_status", {"u": user_id})
    return dict(rows)


def derived(user_id) -> dict[str, int]:
    rows, _ = db.cypher_query(
        "MATCH (n {user_id: $u}) WHERE n:Entity OR n:Fact OR n:Preference "
        "OPTIONAL MATCH (n)-[r:EXTRACTED_FROM|MENTIONS]-() RETURN labels(n)[0] AS label, count(DISTINCT n), count(r)",
        {"u": user_id})
    return {f"{label}:{what}": n for label, nodes, links in rows for what, n in (("nodes", nodes), ("links", links))}


def mine(counts: dict[str, int]) -> dict[str, int]:
    """Return the counts of the kinds of work these tests make (other apps register kinds of their own)."""

    return {kind: counts[kind] for kind in ("extractions", "exports", "erasures")}


def extraction_queue() -> int:
    return broker_redis().llen("extraction")
