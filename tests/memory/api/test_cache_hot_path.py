"""A warm context request asks the relational database nothing and Neo4j one statement (two when the query
names someone: the bounded count of names first), and still returns every section of the person's memory."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from neomodel import db

from memory import ingest, services

pytestmark = pytest.mark.django_db


@pytest.fixture
def statements(monkeypatch):
    """Count the Cypher statements sent, letting each through to Neo4j."""

    sent = []
    send = db.cypher_query

    def counted(query, params=None, *args, **kwargs):
        sent.append(query)
        return send(query, params, *args, **kwargs)

    monkeypatch.setattr(db, "cypher_query", counted)
    return sent


def _remembered(subject, agent, client):
    results = client.post("/api/v1/conversations/s1/messages", {"user_id": subject.user_id, "messages": [
        {"role": "user", "content": "I work at Northwind Traders in Porto and I like green tea."},
        {"role": "assistant", "content": "Noted, Porto is lovely."}]}, format="json").json()["results"]
    for result in results:
        ingest.message_extract(message_uid=result["uid"], user_id=subject.user_id)
    trace = services.trace_start(subject=subject, agent=agent, session_id="s1",
                                 task="find a tea shop in Porto")["uid"]
    services.trace_complete(subject=subject, agent=agent, trace_uid=trace, outcome="found one", success=True)


def _context(client, user_id, query, **body):
    response = client.post("/api/v1/context", {"user_id": user_id, "session_id": "s1", "query": query,
                                               "token_budget": 2000, "min_relevance": 0, **body}, format="json")
    assert response.status_code == 200
    return response.json()


def test_a_warm_context_request_is_one_statement_and_no_relational_query(granted, statements):
    subject, agent, client = granted
    _remembered(subject, agent, client)
    _context(client, subject.user_id, "which tea is liked at work?")
    statements.clear()
    with CaptureQueriesContext(connection) as queries:
        body = _context(client, subject.user_id, "which tea is liked at work?")
        long_term = _context(client, subject.user_id, "which tea is liked at work?", include={"history": False})
    assert [q["sql"] for q in queries] == []
    assert len(statements) == 2
    # The facts and the preference restate a turn of the history, so they cost no tokens beside it.
    assert {"message", "entity", "trace"} <= {item["type"] for item in body["items"]}
    assert {item["provenance"].get("source") for item in body["items"] if item["type"] == "message"} == {"recent"}
    assert {"fact", "preference", "entity", "trace"} <= {item["type"] for item in long_term["items"]}


def test_a_query_naming_someone_costs_one_bounded_count_more(granted, statements):
    subject, agent, client = granted
    _remembered(subject, agent, client)
    _context(client, subject.user_id, "where does Northwind sell tea?")
    statements.clear()
    _context(client, subject.user_id, "where does Northwind sell tea?")
    assert len(statements) == 2 and "LIMIT $window" in statements[0]
