"""A person has one User node, even when their first messages arrive in several sessions at once."""

import threading

import pytest

from memory import services
from portal import graphdb

pytestmark = pytest.mark.django_db(transaction=True)


def test_concurrent_first_appends_in_several_sessions_make_one_person_node(make_subject):
    subject = make_subject()
    graphdb.scalar("RETURN 1")  # one driver for the threads
    start = threading.Barrier(6)

    def first_message(session: int) -> None:
        start.wait(timeout=10)
        services.conversation_append(user_id=subject.user_id, agent_id="a", session_id=f"s{session}", rows=[{
            "role": "user", "content": f"hello from {session}", "client_id": f"c{session}",
            "content_hash": f"h{session}", "embedding": [0.0] * 383 + [1.0]}])

    threads = [threading.Thread(target=first_message, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)

    assert graphdb.scalar("MATCH (u:User {user_id: $u}) RETURN count(u) AS n", {"u": subject.user_id}) == 1
    assert graphdb.scalar("MATCH (:User {user_id: $u})-[:HAS_CONVERSATION]->(c) RETURN count(c) AS n",
                          {"u": subject.user_id}) == 6
