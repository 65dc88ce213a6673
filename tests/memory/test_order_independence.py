"""The graph extraction writes is a function of the messages and their order, never of the order tasks ran in.

One conversation (two people talking over three sessions: a job change, a move, a preference said
twice in other words and then reversed, a liking said again in fewer words, a colleague named twice, a short form of a company, an assistant speaking
in the first person) is extracted message by message through memory.ingest.message_extract in
several orders, and the whole graph of the person is compared property by property.

Ignored, and only this: SAME_AS.created_at, the moment a merge was proposed to reviewers, which
records when the run got there rather than anything the conversation said.
"""

import random

import pytest
from neomodel import db

from memory import ingest
from tests.memory.api.test_messages import _append

pytestmark = pytest.mark.django_db

RUN_DEPENDENT = {"SAME_AS": {"created_at"}}

CONVERSATION = {
    "2025-01-10": [
        ("user", "I work at Acme Corp now."),
        ("assistant", "Nice! I work at Porto Labs myself, as a research assistant."),
        ("user", "I live in Lisbon, near the Tagus."),
        ("user", "I really like curry for lunch."),
        ("user", "I love getting lost in fantasy stories."),
        ("user", "My colleague Anna Berg joined Kestrel Robotics last week."),
        ("assistant", "Kestrel Robotics builds warehouse robots, right?"),
    ],
    "2025-02-03": [
        ("user", "Since 3 March 2024 I have volunteered at the Lisbon Food Bank."),
        ("user", "I work at Globex now."),
        ("user", "I love curries for lunch."),
        ("user", "Kestrel is hiring again, Anna says."),
        ("assistant", "Good to know. I live in Porto, so I can't visit."),
        ("user", "I moved to Porto."),
    ],
    "2025-03-15": [
        ("user", "I don't like curry for lunch."),
        ("user", "I like fantasy."),
        ("user", "Anna Berger called about the Lisbon Rail Summit."),
        ("user", "I work at Initech now."),
        ("assistant", "Congratulations on Initech!"),
    ],
}


def conversation_append(client, user_id) -> list[str]:
    """Append the conversation through the API, one batch per session; return the message uids in order."""
    uids = []
    for day, turns in CONVERSATION.items():
        messages = [{"role": role, "content": content, "created_at": f"{day}T{9 + i:02d}:00:00+00:00"}
                    for i, (role, content) in enumerate(turns)]
        body = _append(client, user_id, messages, session=f"s-{day}").json()
        uids += [r["uid"] for r in body["results"]]
    return uids


def memory_forget(user_id) -> None:
    """Drop everything extraction derived for the person and mark their messages pending again."""
    db.cypher_query("MATCH (n {user_id: $u}) WHERE n:Entity OR n:Fact OR n:Preference DETACH DELETE n", {"u": user_id})
    db.cypher_query("MATCH (m:Message {user_id: $u}) SET m.extraction_status = 'pending', m.extraction_error = null",
                    {"u": user_id})


def graph_snapshot(user_id) -> dict:
    """Return every node of the person with all its properties, and every relationship from one of them."""
    nodes, _ = db.cypher_query(
        "MATCH (n {user_id: $u}) RETURN labels(n) AS labels, n.uid AS uid, properties(n) AS props", {"u": user_id})
    rels, _ = db.cypher_query(
        "MATCH (a {user_id: $u})-[r]->(b) RETURN type(r) AS type, a.uid AS a, b.uid AS b, properties(r) AS props",
        {"u": user_id})
    snapshot = {("node", tuple(sorted(labels)), uid): _plain(props) for labels, uid, props in nodes}
    for kind, a, b, props in rels:
        key = ("rel", kind, a, b)
        assert key not in snapshot, f"two {kind} relationships from {a} to {b}"
        snapshot[key] = {k: v for k, v in _plain(props).items() if k not in RUN_DEPENDENT.get(kind, ())}
    return snapshot


def _plain(props: dict) -> dict:
    return {k: (v.to_native().isoformat() if hasattr(v, "to_native") else v) for k, v in props.items()}


def extract_in_order(user_id, uids) -> None:
    for uid in uids:
        assert ingest.message_extract(message_uid=uid, user_id=user_id) == "done"


def assert_same_graph(expected: dict, actual: dict) -> None:
    assert expected.keys() == actual.keys(), (
        f"only in the first: {sorted(expected.keys() - actual.keys())}; "
        f"only in the second: {sorted(actual.keys() - expected.keys())}")
    for key in expected:
        for prop in expected[key].keys() | actual[key].keys():
            want, got = expected[key].get(prop), actual[key].get(prop)
            if prop == "embedding" and want is not None and got is not None:
                # The encoder's matrix products round differently with the batch a text was embedded in.
                assert len(want) == len(got) and max(abs(a - b) for a, b in zip(want, got)) < 1e-5, (key, prop)
            else:
                assert want == got, (key, prop)


def test_every_extraction_order_gives_the_same_graph(granted):
    subject, _, client = granted
    user = subject.user_id
    uids = conversation_append(client, user)
    extract_in_order(user, uids)
    in_order = graph_snapshot(user)
    facts = {(p["predicate"], p["object"]): p["status"] for key, p in in_order.items() if key[:2] == ("node", ("Fact",))}
    assert facts[("EMPLOYED_BY", "Initech")] == "current"
    assert facts[("EMPLOYED_BY", "Acme Corp")] == facts[("EMPLOYED_BY", "Globex")] == "superseded"
    assert sum(1 for key in in_order if key[:2] == ("node", ("Preference",))) == 4
    liked, = [key[2] for key, p in in_order.items() if key[:2] == ("node", ("Preference",)) and p["polarity"] == "positive"
              and "curry" in p["topic"]]
    assert in_order[("node", ("Preference",), liked)]["topic"] == "curry for lunch"  # the earliest statement's words
    assert sum(1 for key in in_order if key[:3] == ("rel", "EXTRACTED_FROM", liked)) == 2
    # A liking said first in other words stands for the later "fantasy", which carries its statement too.
    fantasy = {p["topic"]: (key[2], p["status"]) for key, p in in_order.items()
               if key[:2] == ("node", ("Preference",)) and "fantasy" in p["topic"]}
    assert fantasy["getting lost in fantasy stories"][1] == "current" and fantasy["fantasy"][1] == "superseded"
    first_said = fantasy["getting lost in fantasy stories"][0]
    assert sum(1 for key in in_order if key[:3] == ("rel", "EXTRACTED_FROM", first_said)) == 2

    generator = random.Random(11)
    orders = [uids[::-1], uids[1::2] + uids[::2]] + [generator.sample(uids, len(uids)) for _ in range(3)]
    for order in orders:
        memory_forget(user)
        extract_in_order(user, order)
        assert_same_graph(in_order, graph_snapshot(user))

    # Re-extracting the whole conversation over what it already wrote reproduces it too.
    db.cypher_query("MATCH (m:Message {user_id: $u}) SET m.extraction_status = 'pending'", {"u": user})
    extract_in_order(user, generator.sample(uids, len(uids)))
    assert_same_graph(in_order, graph_snapshot(user))
