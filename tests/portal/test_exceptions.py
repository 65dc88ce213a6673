"""A transient Neo4j failure (a real deadlock) is the API's JSON 503, not a 500."""

import threading

from neo4j.exceptions import TransientError
from neomodel import db

from portal import graphdb
from portal.exceptions import exception_handler


def deadlock() -> TransientError:
    """Make two transactions take two node locks in opposite orders; return the error Neo4j gives the loser."""
    db.cypher_query("CREATE (:DeadlockProbe {n: 1}), (:DeadlockProbe {n: 2})")
    graphdb.scalar("RETURN 1")  # build the driver before the threads share it
    both_hold_one = threading.Barrier(2)
    errors = []

    def lock(first: int, second: int) -> None:
        try:
            with db.driver.session() as session, session.begin_transaction() as tx:
                tx.run("MATCH (p:DeadlockProbe {n: $n}) SET p.locked = true", n=first).consume()
                both_hold_one.wait(timeout=10)
                tx.run("MATCH (p:DeadlockProbe {n: $n}) SET p.locked = true", n=second).consume()
                tx.commit()
        except TransientError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=lock, args=order) for order in ((1, 2), (2, 1))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(errors) == 1, errors
    return errors[0]


def test_a_deadlock_is_a_503_naming_neo4j_and_saying_nothing_changed():
    error = deadlock()
    assert "Deadlock" in error.code
    response = exception_handler(error, {})
    assert response.status_code == 503
    assert response.data["extra"] == {"service": "neo4j"}
    assert "nothing was changed" in response.data["message"]
