"""Raw Cypher of the governance app: bulk erasure, export and residue scans, as named constants.

Labels are never taken from input: they come from memory's registry of kinds (memory.kinds) or from
the database's own `db.labels()`, and are quoted with backticks by `label_query`.
"""

# Vector properties are derived from the text and omitted from exports.
EMBEDDING_PROPERTIES = ["embedding", "task_embedding"]

LABELS = "CALL db.labels() YIELD label RETURN label ORDER BY label"

# One batch of a subject's nodes of one label; run in a loop, each batch its own transaction, so
# other users' reads and writes interleave with a large erasure.
_BATCH_DELETE = """
MATCH (n:{label} {{user_id: $user_id}})
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
"""

# Conversations left with neither messages nor traces once history is erased.
EMPTY_CONVERSATIONS_DELETE = """
MATCH (c:Conversation {user_id: $user_id})
WHERE NOT (c)-[:HAS_MESSAGE]->() AND NOT (c)-[:HAS_TRACE]->()
WITH c LIMIT $batch
DETACH DELETE c
RETURN count(*) AS deleted
"""

# Each node is exported under its first label only.
_COUNT = "MATCH (n:{label} {{user_id: $user_id}}) WHERE head(labels(n)) = $label RETURN count(n) AS n"

# Every node of the subject whatever its label, including labels no code here knows about.
RESIDUE_NODES = "MATCH (n) WHERE n.user_id = $user_id RETURN count(n) AS n"

# A page of one label's nodes in uid order, without vectors; then the same page's outgoing relationships.
_NODE_PAGE = """
MATCH (n:{label} {{user_id: $user_id}})
WITH n, coalesce(n.uid, elementId(n)) AS key
WHERE head(labels(n)) = $label AND ($after IS NULL OR key > $after)
WITH n, key ORDER BY key LIMIT $limit
RETURN key, labels(n) AS labels, [k IN keys(n) WHERE NOT k IN $skip | [k, n[k]]] AS properties
"""

_RELATIONSHIP_PAGE = """
MATCH (n:{label} {{user_id: $user_id}})
WITH n, coalesce(n.uid, elementId(n)) AS key
WHERE head(labels(n)) = $label AND ($after IS NULL OR key > $after)
WITH n, key ORDER BY key LIMIT $limit
OPTIONAL MATCH (n)-[r]->(m)
RETURN key, type(r) AS type, properties(r) AS properties, coalesce(m.uid, elementId(m)) AS target,
       labels(m) AS target_labels
"""

CONVERSATIONS_RECENT = """
MATCH (c:Conversation {user_id: $user_id})
OPTIONAL MATCH (c)-[:HAS_MESSAGE]->(m:Message)
WITH c, count(m) AS messages, max(m.created_at) AS last_at
RETURN c.uid AS uid, c.session_id AS session_id, c.agent_id AS agent_id, c.title AS title,
       c.created_at AS created_at, messages, coalesce(last_at, c.created_at) AS last_at
ORDER BY last_at DESC LIMIT $limit
"""

CONVERSATION_MESSAGES = """
MATCH (c:Conversation {uid: $uid, user_id: $user_id})
OPTIONAL MATCH (c)-[:HAS_MESSAGE]->(m:Message)
WITH c, m ORDER BY m.seq
RETURN c.uid AS uid, c.session_id AS session_id, c.agent_id AS agent_id, c.title AS title,
       c.created_at AS created_at,
       [x IN collect(m) | {uid: x.uid, role: x.role, content: x.content, seq: x.seq, created_at: x.created_at}]
         AS messages
"""

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
RETURN e.uid AS uid, e.name AS name, e.type AS type, entities, facts,
       collect(DISTINCT {uid: m.uid, text: left(m.content, 80)})[..$limit] AS messages
"""

TRACE_STEPS = """
MATCH (t:ReasoningTrace {uid: $uid, user_id: $user_id})-[hs:HAS_STEP]->(s:ReasoningStep)
OPTIONAL MATCH (s)-[:HAS_TOOL_CALL]->(c:ToolCall)
WITH hs, s, collect(c {.tool_name, .status, .arguments, .result}) AS calls ORDER BY hs.order
RETURN hs.order AS order, s.thought AS thought, s.action AS action, s.observation AS observation,
       calls AS tool_calls
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
