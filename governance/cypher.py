"""Raw Cypher of the governance app: bulk erasure, export and residue scans, as named constants.

Labels are never taken from input: they come from the fixed tables below or from the database's
own `db.labels()`, and are quoted with backticks by `label_query`.
"""

# Labels that hold memory, per consent category, in the order a category is erased.
CATEGORY_LABELS = {
    "history": ("Message",),
    "long_term": ("Fact", "Preference", "Entity"),
    "reasoning": ("ToolCall", "ReasoningStep", "ReasoningTrace"),
}
# Memory kinds counted on the overview, with the label that holds each.
KIND_LABELS = {"conversations": "Conversation", "messages": "Message", "facts": "Fact",
               "preferences": "Preference", "entities": "Entity", "traces": "ReasoningTrace"}
# Vector properties are derived from the text and omitted from exports.
EMBEDDING_PROPERTIES = ["embedding", "task_embedding"]

LABELS = "CALL db.labels() YIELD label RETURN label ORDER BY label"

# One batch of a subject's nodes of one label; run in a loop, each batch its own transaction, so
# other users' reads and writes interleave with a large erasure.
_BATCH_DELETE = """
MATCH (n:{label} {{user_id: $user_id}})
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*)
"""

# Conversations left with neither messages nor traces once history is erased.
EMPTY_CONVERSATIONS_DELETE = """
MATCH (c:Conversation {user_id: $user_id})
WHERE NOT (c)-[:HAS_MESSAGE]->() AND NOT (c)-[:HAS_TRACE]->()
WITH c LIMIT $batch
DETACH DELETE c
RETURN count(*)
"""

# Each node is exported under its first label only.
_COUNT = "MATCH (n:{label} {{user_id: $user_id}}) WHERE head(labels(n)) = $label RETURN count(n)"

# Every node of the subject whatever its label, including labels no code here knows about.
RESIDUE_NODES = "MATCH (n) WHERE n.user_id = $user_id RETURN count(n)"

# A page of one label's nodes in uid order, without vectors; then the same page's outgoing relationships.
_NODE_PAGE = """
MATCH (n:{label} {{user_id: $user_id}})
WITH n, coalesce(n.uid, elementId(n)) AS key
WHERE head(labels(n)) = $label AND ($after IS NULL OR key > $after)
WITH n, key ORDER BY key LIMIT $limit
RETURN key, labels(n), [k IN keys(n) WHERE NOT k IN $skip | [k, n[k]]]
"""

_RELATIONSHIP_PAGE = """
MATCH (n:{label} {{user_id: $user_id}})
WITH n, coalesce(n.uid, elementId(n)) AS key
WHERE head(labels(n)) = $label AND ($after IS NULL OR key > $after)
WITH n, key ORDER BY key LIMIT $limit
OPTIONAL MATCH (n)-[r]->(m)
RETURN key, type(r), properties(r), coalesce(m.uid, elementId(m)), labels(m)
"""

CONVERSATIONS_RECENT = """
MATCH (c:Conversation {user_id: $user_id})
OPTIONAL MATCH (c)-[:HAS_MESSAGE]->(m:Message)
WITH c, count(m) AS messages, max(m.created_at) AS last_at
RETURN c.uid, c.session_id, c.agent_id, c.title, c.created_at, messages, coalesce(last_at, c.created_at) AS last
ORDER BY last DESC LIMIT $limit
"""

CONVERSATION_MESSAGES = """
MATCH (c:Conversation {uid: $uid, user_id: $user_id})
OPTIONAL MATCH (c)-[:HAS_MESSAGE]->(m:Message)
WITH c, m ORDER BY m.seq
RETURN c.uid, c.session_id, c.agent_id, c.title, c.created_at,
       [x IN collect(m) | {uid: x.uid, role: x.role, content: x.content, seq: x.seq, created_at: x.created_at}]
"""

# Case-insensitive search over the text of one kind of item.
ITEM_SEARCH = {
    "messages": "MATCH (n:Message {user_id: $user_id}) WHERE toLower(n.content) CONTAINS $q "
                "RETURN n.uid, n {.role, .content, .created_at} ORDER BY n.created_at DESC LIMIT $limit",
    "facts": "MATCH (n:Fact {user_id: $user_id}) "
             "WHERE toLower(n.subject + ' ' + n.predicate + ' ' + n.object) CONTAINS $q "
             "RETURN n.uid, n {.subject, .predicate, .object, .status, .valid_from, .valid_until} "
             "ORDER BY n.recorded_at DESC LIMIT $limit",
    "preferences": "MATCH (n:Preference {user_id: $user_id}) "
                   "WHERE toLower(n.category + ' ' + n.preference) CONTAINS $q "
                   "RETURN n.uid, n {.category, .preference, .status} ORDER BY n.valid_from DESC LIMIT $limit",
    "entities": "MATCH (n:Entity {user_id: $user_id}) "
                "WHERE toLower(n.name) CONTAINS $q OR any(a IN coalesce(n.aliases, []) WHERE toLower(a) CONTAINS $q) "
                "RETURN n.uid, n {.name, .type} ORDER BY n.name LIMIT $limit",
    "traces": "MATCH (n:ReasoningTrace {user_id: $user_id}) "
              "WHERE toLower(n.task + ' ' + coalesce(n.outcome, '')) CONTAINS $q "
              "RETURN n.uid, n {.task, .outcome, .success} ORDER BY n.started_at DESC LIMIT $limit",
}

# An entity with what it relates to, what mentions it and which facts are about it.
ENTITY_NEIGHBOURHOOD = """
MATCH (e:Entity {uid: $uid, user_id: $user_id})
OPTIONAL MATCH (e)-[r:RELATED_TO|SAME_AS]-(other:Entity {user_id: $user_id})
WITH e, collect(DISTINCT {uid: other.uid, name: other.name, kind: other.type, rel: type(r),
     label: coalesce(r.type, r.status), outgoing: startNode(r) = e})[..$limit] AS entities
OPTIONAL MATCH (f:Fact {user_id: $user_id})-[:ABOUT]->(e)
WITH e, entities, collect(DISTINCT {uid: f.uid, text: f.subject + ' ' + f.predicate + ' ' + f.object,
     status: f.status})[..$limit] AS facts
OPTIONAL MATCH (m:Message {user_id: $user_id})-[:MENTIONS]->(e)
RETURN e.uid, e.name, e.type, entities, facts,
       collect(DISTINCT {uid: m.uid, text: left(m.content, 80)})[..$limit] AS messages
"""

TRACE_STEPS = """
MATCH (t:ReasoningTrace {uid: $uid, user_id: $user_id})-[hs:HAS_STEP]->(s:ReasoningStep)
OPTIONAL MATCH (s)-[:HAS_TOOL_CALL]->(c:ToolCall)
WITH hs, s, collect(c {.tool_name, .status, .arguments, .result}) AS calls ORDER BY hs.order
RETURN hs.order, s.thought, s.action, s.observation, calls
"""


def label_query(template: str, label: str) -> str:
    """Return the template for one label, quoted so that no label text can change the query."""
    return template.format(label="`" + label.replace("`", "``") + "`")


def batch_delete(label: str) -> str:
    return label_query(_BATCH_DELETE, label)


def count(label: str) -> str:
    return label_query(_COUNT, label)


def node_page(label: str) -> str:
    return label_query(_NODE_PAGE, label)


def relationship_page(label: str) -> str:
    return label_query(_RELATIONSHIP_PAGE, label)
