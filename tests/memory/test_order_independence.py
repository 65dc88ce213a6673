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

from tests.support.graph import (assert_same_graph, conversation_append, extract_in_order,
                                  graph_snapshot, memory_forget)

pytestmark = pytest.mark.django_db


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
