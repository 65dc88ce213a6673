"""The graph as tests read it back: whole snapshots of a person's memory, and what the product writes against what
memory/graph.py declares; plus one conversation extracted in several orders."""

from neomodel import db

from memory import graph, ingest
from tests.support.api import append
from tests.support.stack import MARKER

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
        body = append(client, user_id, messages, session=f"s-{day}").json()
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


# A write lock: set and removed in the same statement, or a counter no reader uses; not data.
LOCKS = {"_lock"}
# Neo4j value types each declared property class can hold.
HOLDS = {
    graph.StatedTimeProperty: {"DATE", "ZONED DATETIME"},
}


def properties_written(query: str) -> dict[tuple[str, str], set[str]]:
    rows, _ = db.cypher_query(query, {"marker": MARKER})
    return {(owner, key): {t.removesuffix(" NOT NULL") for t in types} for owner, key, types in rows}


NODE_PROPERTIES = """
MATCH (n) WHERE NOT $marker IN labels(n)
UNWIND keys(n) AS key
RETURN head(labels(n)), key, collect(DISTINCT valueType(n[key]))
"""

RELATIONSHIP_PROPERTIES = """
MATCH ()-[r]->() UNWIND keys(r) AS key
RETURN type(r), key, collect(DISTINCT valueType(r[key]))
"""


def declared_nodes() -> dict[str, dict]:
    return {cls.__label__: {prop.db_property or name: prop
                            for name, prop in cls.defined_properties(aliases=False, rels=False).items()}
            for cls in graph.NODES}


def declared_relationships() -> dict[str, dict]:
    declared = {}
    for cls in graph.NODES:
        for rel in cls.defined_properties(aliases=False, properties=False).values():
            model = rel.definition["model"]
            if model is not None:
                declared[rel.definition["relation_type"]] = model.defined_properties(aliases=False, rels=False)
            else:
                declared.setdefault(rel.definition["relation_type"], {})
    return declared


def undeclared(written: dict, declared: dict) -> list[str]:
    problems = []
    for (owner, key), types in sorted(written.items()):
        if key in LOCKS:
            continue
        prop = declared.get(owner, {}).get(key)
        if prop is None:
            problems.append(f"{owner}.{key} ({', '.join(sorted(types))}) is written but not declared")
        elif type(prop) in HOLDS and not types <= HOLDS[type(prop)]:
            problems.append(f"{owner}.{key} holds {types}, declared {type(prop).__name__}")
        elif any(t in ("DATE", "ZONED DATETIME") for t in types) and type(prop) not in HOLDS and not (
                types == {"ZONED DATETIME"} and isinstance(prop, graph.DateTimeNeo4jFormatProperty)):
            problems.append(f"{owner}.{key} holds {types}, declared {type(prop).__name__}")
    return problems
