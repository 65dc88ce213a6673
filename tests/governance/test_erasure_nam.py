"""Erasing a person whose memory neo4j-agent-memory wrote: the residue scan looks for their content itself."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from neomodel import db

from governance import selectors, services
from governance.models import ErasureScope, JobStatus
from memory.models import Subject
from tests.fixtures.nam import nam_adopt, nam_graph_load, nam_people

pytestmark = pytest.mark.django_db
OTHERS = ("nam-bob", "nam-carol")


def owned_graph(user_ids) -> list:
    """Return the labels and properties of these people's nodes and their relationships, in a stable order."""
    nodes, _ = db.cypher_query("MATCH (n) WHERE n.user_id IN $u RETURN labels(n), properties(n)", {"u": list(user_ids)})
    rels, _ = db.cypher_query("MATCH (a)-[r]->(b) WHERE a.user_id IN $u OR b.user_id IN $u "
                              "RETURN a.uid, type(r), properties(r), b.uid", {"u": list(user_ids)})
    return sorted(repr(row) for row in nodes) + sorted(repr(row) for row in rels)


def holding(texts) -> int:
    """Count node properties that still hold one of these texts, ignoring case (an oracle the scan does not use)."""
    found, _ = db.cypher_query(
        "MATCH (n) UNWIND keys(n) AS k WITH n, k WHERE n[k] IS :: STRING "
        "AND any(t IN $texts WHERE toLower(n[k]) CONTAINS toLower(t)) RETURN count(*)", {"texts": list(texts)})
    return found[0][0]


def erase(user_id: str):
    job = services.erasure_request(subject=Subject.objects.get(user_id=user_id), scope=ErasureScope.ALL)
    services.subject_erase(job_id=job.pk)
    job.refresh_from_db()
    return job


def test_erasing_an_adopted_nam_user_leaves_none_of_their_content_and_spares_the_others():
    people = nam_people(nam_graph_load())
    nam_adopt()
    others = owned_graph(OTHERS)
    counts = dict(db.cypher_query("MATCH (n) WHERE n.user_id IN $u RETURN labels(n)[0], count(n)", {"u": list(OTHERS)})[0])
    assert {"Message", "Entity", "Preference", "Fact", "ReasoningTrace", "Conversation", "User"} <= set(counts)
    mine = set(people["nam-alice"]["messages"]) - {m for i in OTHERS for m in people[i]["messages"]}
    assert holding(mine) == len(mine) > 0

    job = erase("nam-alice")

    # The placeholder account ("nam:nam-alice") stays: its username names the id but is not memory.
    assert get_user_model().objects.filter(username="nam:nam-alice").exists()
    assert job.status == JobStatus.DONE, (job.tombstone.residue, job.tombstone.residue_hits)
    assert job.tombstone.residue == {"neo4j": 0, "redis": 0, "broker": 0, "database": 0, "files": 0, "content": 0}
    assert job.tombstone.residue_hits == []
    assert holding(mine) == 0
    # Alice shares entities (Acme Corp) and a preference (dark mode) with the others, and an unowned NAM fact
    # names Acme Corp: the others' copies are theirs, so what they hold is shared, and kept.
    assert job.tombstone.kept["content_shared_with_others"] > 0
    assert owned_graph(OTHERS) == others
    left, _ = db.cypher_query("MATCH (f:Fact) WHERE f.user_id IS NULL RETURN f.subject, f.object")
    assert left == [["Acme Corp", "Lisbon"]]


# Hand-written: copies of Alice's words in nodes no product wrote (another library's, a note), which
# neither the erasure's user_id nor adoption can reach.
COPIES = """
CREATE (:Note {id: 'note-forward', body: 'Fwd:  i MOVED to lisbon last spring,and I work at ACME Corp now!! (from chat)'})
CREATE (:Note {id: 'note-tags', tags: ['misc', 'Great, my manager Marta Silva is very kind.']})
CREATE (:Note {id: 'note-name', title: 'Marta Silva'})
CREATE (:Note {id: 'note-owner', owner: 'nam-alice'})
CREATE (:Note {id: 'note-city', title: 'Lisbon', body: 'Reminder: prefers dark mode in every app'})
"""


def test_a_copy_of_the_persons_content_in_an_unrelated_node_is_reported_as_residue():
    nam_graph_load()
    nam_adopt()
    db.cypher_query(COPIES)

    job = erase("nam-alice")

    assert job.status == JobStatus.FAILED and job.tombstone.residue["content"] == 4
    assert sorted((h["label"], h["property"], h["node"]) for h in job.tombstone.residue_hits) == [
        ("Note", "body", "note-forward"), ("Note", "owner", "note-owner"), ("Note", "tags", "note-tags"),
        ("Note", "title", "note-name")]
    # A one-word name ('Lisbon') is anyone's, and what the others' own preferences say is theirs too.
    assert not [h for h in job.tombstone.residue_hits if h["node"] == "note-city"]
    assert "Marta" not in str(job.tombstone.__dict__)
    browser = Client()
    browser.force_login(Subject.objects.get(user_id="nam-alice").account)
    page = browser.get(f"/me/erasures/{job.public_id}/").content.decode()
    assert "Note.body (note-forward)" in page and "Marta" not in page


def test_a_failed_erasure_says_how_to_finish_and_staff_finish_it_by_deleting_what_the_scan_found(staff):
    nam_graph_load()
    nam_adopt()
    db.cypher_query(COPIES)
    job = erase("nam-alice")
    assert job.status == JobStatus.FAILED and "Finish: delete the residue found" in job.error

    _, admin = staff("erase_subjects")
    response = admin.post("/admin/governance/erasurejob/", {"action": "residue_delete", "_selected_action": [job.pk]},
                          follow=True)

    assert response.status_code == 200 and "is done" in response.content.decode()
    job.refresh_from_db()
    assert job.status == JobStatus.DONE and job.error == ""
    assert job.tombstone.residue["content"] == 0 and job.tombstone.deleted["residue_nodes"] == 4
    notes, _ = db.cypher_query("MATCH (n:Note) RETURN n.id")
    assert notes == [["note-city"]]  # what held nothing of hers stays


def test_erasing_before_adoption_is_not_clean_while_nam_still_holds_the_persons_memory():
    people = nam_people(nam_graph_load())
    Subject.objects.create(account=get_user_model().objects.create_user(username="alice"), user_id="nam-alice")

    job = erase("nam-alice")

    assert job.status == JobStatus.FAILED and job.nodes_deleted == 0
    hits = job.tombstone.residue_hits
    assert {(h["label"], h["property"]) for h in hits} >= {
        ("Message", "content"), ("Preference", "preference"), ("User", "identifier"),
        ("Conversation", "user_identifier")}
    # Every message of hers long enough to tell anyone apart ("Noted: short answers." is not) is found.
    telling = [m for m in people["nam-alice"]["messages"] if selectors.text_fingerprints(m)]
    assert len([h for h in hits if h["label"] == "Message"]) == len(telling) >= len(people["nam-alice"]["messages"]) - 1
