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

# The properties that hold a person's words, or what was derived from them, by label: what an erasure
# fingerprints before it deletes. Ids, kinds, roles and times are no one's words.
CONTENT_PROPERTIES = {
    "Message": ["content"],
    "Entity": ["name", "aliases", "description"],
    "Preference": ["preference", "context"],
    "Fact": ["subject", "predicate", "object"],
    "ReasoningTrace": ["task", "outcome"],
    "ReasoningStep": ["thought", "observation"],
    "ToolCall": ["arguments", "result"],
    "Conversation": ["title"],
}

# The distinct texts of one label's content properties on the subject's nodes (a list, as aliases, is
# flattened), read through the label's user_id index.
_CONTENT_TEXTS = """
MATCH (n:{label} {{user_id: $user_id}})
UNWIND [k IN $properties WHERE n[k] IS NOT NULL | n[k]] AS value
UNWIND CASE WHEN value IS :: LIST<ANY> THEN value ELSE [value] END AS text
WITH text WHERE text IS :: STRING
RETURN DISTINCT text
"""

# Entity names and aliases: matched as whole values, as a name is too short to look for inside a text.
ENTITY_NAMES = """
MATCH (e:Entity {user_id: $user_id})
UNWIND [e.name] + coalesce(e.aliases, []) AS name
WITH name WHERE name IS :: STRING
RETURN DISTINCT name
"""

# What neo4j-agent-memory wrote for a user of this identifier that adopt_nam has not adopted yet (no
# user_id): the erasure cannot delete it, so its scan must see it.
NAM_CONTENT_TEXTS = """
MATCH (u:User {identifier: $user_id}) WHERE u.user_id IS NULL
CALL (u) {
  MATCH (u)-[:HAS_CONVERSATION]->(:Conversation)-[:HAS_MESSAGE]->(m:Message) RETURN 'Message' AS label, m.content AS text
  UNION
  MATCH (u)-[:HAS_PREFERENCE]->(p:Preference) RETURN 'Preference' AS label, p.preference AS text
  UNION
  MATCH (u)-[:HAS_TRACE]->(t:ReasoningTrace) RETURN 'ReasoningTrace' AS label, t.task AS text
}
WITH label, text WHERE text IS :: STRING
RETURN label, text
"""

# Every string (or list of strings) property of every node that is not the subject's, under any label,
# streamed: the content scan looks for the subject's fingerprints in what the erasure left.
RESIDUE_TEXTS = """
MATCH (n) WHERE n.user_id IS NULL OR n.user_id <> $user_id
WITH n, [k IN keys(n) WHERE n[k] IS :: STRING OR n[k] IS :: LIST<STRING NOT NULL> | [k, n[k]]] AS texts
WHERE size(texts) > 0
RETURN labels(n) AS labels, n.user_id AS owner, coalesce(n.uid, n.id, elementId(n)) AS node, texts
"""

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


def content_texts(label: str) -> str:
    return label_query(_CONTENT_TEXTS, label)
