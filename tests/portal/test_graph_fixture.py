"""The graph fixture: refuses foreign data, schema installed once, each test starts empty."""

import pytest
from neomodel import UniqueProperty, db

from memory.graph import Message
from tests.support.stack import MARKER, refuse_foreign_graph


def test_labels_are_installed():
    rows, _ = db.cypher_query("SHOW INDEXES YIELD name RETURN collect(name)")
    names = set(rows[0][0])
    assert {"constraint_unique_Message_uid", "index_Message_user_id", "message_embedding_idx",
            "message_words", "entity_names"} <= names


def test_uid_uniqueness_is_enforced_by_the_database():
    Message(uid="same", user_id="u1", role="user", content="hello", seq=1).save()
    with pytest.raises(UniqueProperty):
        Message(uid="same", user_id="u2", role="user", content="hello", seq=1).save()


def test_a_populated_foreign_graph_is_refused():
    Message(user_id="someone", role="user", content="real memory", seq=1).save()
    db.cypher_query(f"MATCH (m:{MARKER}) DELETE m")
    try:
        with pytest.raises(pytest.exit.Exception, match="Refusing to run"):
            refuse_foreign_graph()
    finally:
        db.cypher_query(f"MERGE (:{MARKER})")
    refuse_foreign_graph()  # with the marker back, leftovers of this suite are fine


def test_first_test_writes_a_node():
    Message(user_id="isolation", role="user", content="left behind?", seq=1).save()
    assert len(Message.nodes.filter(user_id="isolation")) == 1


def test_second_test_does_not_see_it():
    assert len(Message.nodes.filter(user_id="isolation")) == 0


def test_vector_indexes_of_another_dimension_stop_install_labels():
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import call_command

    db.cypher_query("CREATE VECTOR INDEX probe_other_model IF NOT EXISTS FOR (p:Probe) ON p.embedding "
                    "OPTIONS {indexConfig: {`vector.dimensions`: 1536, `vector.similarity_function`: 'cosine'}}")
    try:
        with pytest.raises(ImproperlyConfigured, match="probe_other_model has 1536"):
            call_command("install_labels", verbosity=0)
    finally:
        db.cypher_query("DROP INDEX probe_other_model IF EXISTS")
