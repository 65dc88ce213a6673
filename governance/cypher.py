"""Raw Cypher of the governance app: bulk erasure, export and residue scans, as named constants.

Labels are never taken from input: they come from memory's registry of kinds (memory.kinds) or from
the database's own `db.labels()`, and are quoted with backticks by `label_query`.
"""

from memory import cypher as memory_cypher
from memory.kinds import KINDS

RETAINED_LABELS = tuple(kind.label for kind in KINDS)

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

# The person's messages: the outbox names their extraction's keys in Redis by message uid.
MESSAGE_UIDS = "MATCH (m:Message {user_id: $user_id}) RETURN m.uid AS uid"

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

# How the subject was known to neo4j-agent-memory: the identifier, NAM's id and the attributes (its name)
# of their User node, adopted or not: NAM's facts and entities name a person by these, not by user_id.
NAM_REFERENCES = """
MATCH (u:User) WHERE u.identifier IS NOT NULL AND (u.user_id = $user_id OR (u.user_id IS NULL AND u.identifier = $user_id))
RETURN u.identifier AS identifier, u.id AS nam_id, u.attributes_json AS attributes
"""

# Nodes an erasure's residue scan found the subject's content in, by the id the tombstone gives them,
# while they still have no owner: deleted when staff finish the erasure.
RESIDUE_NODES_DELETE = """
MATCH (n) WHERE n.user_id IS NULL AND coalesce(n.uid, n.id, elementId(n)) IN $nodes
DETACH DELETE n
RETURN count(*) AS deleted
"""

RESIDUE_NODES_LEFT = """
MATCH (n) WHERE n.user_id IS NULL AND coalesce(n.uid, n.id, elementId(n)) IN $nodes
RETURN count(n) AS left
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

# The person's pages show what is within retention only (memory.cypher.kept, the person's $cutoffs).
CONVERSATIONS_RECENT = """
MATCH (c:Conversation {user_id: $user_id})
OPTIONAL MATCH (c)-[:HAS_MESSAGE]->(m:Message)
WHERE """ + memory_cypher.kept(label="Message", node="m") + """
WITH c, count(m) AS messages, max(m.created_at) AS last_at
RETURN c.uid AS uid, c.session_id AS session_id, c.agent_id AS agent_id, c.title AS title,
       c.created_at AS created_at, messages, coalesce(last_at, c.created_at) AS last_at
ORDER BY last_at DESC LIMIT $limit
"""

CONVERSATION_MESSAGES = """
MATCH (c:Conversation {uid: $uid, user_id: $user_id})
OPTIONAL MATCH (c)-[:HAS_MESSAGE]->(m:Message)
WHERE """ + memory_cypher.kept(label="Message", node="m") + """
WITH c, m ORDER BY m.seq
RETURN c.uid AS uid, c.session_id AS session_id, c.agent_id AS agent_id, c.title AS title,
       c.created_at AS created_at, c.last_seq AS last_seq,
       [x IN collect(m) | {uid: x.uid, role: x.role, content: x.content, seq: x.seq, created_at: x.created_at}]
         AS messages
"""

# An entity with what it relates to, what mentions it and which facts are about it, within retention.
ENTITY_NEIGHBOURHOOD = """
MATCH (e:Entity {uid: $uid, user_id: $user_id})
OPTIONAL MATCH (e)-[r:RELATED_TO|SAME_AS]-(other:Entity {user_id: $user_id})
WHERE """ + memory_cypher.kept(label="Entity", node="other") + """
WITH e, collect(DISTINCT {uid: other.uid, name: other.name, kind: other.type, rel: type(r),
     label: coalesce(r.type, r.status), outgoing: startNode(r) = e})[..$limit] AS entities
OPTIONAL MATCH (f:Fact {user_id: $user_id})-[:ABOUT]->(e)
WHERE """ + memory_cypher.kept(label="Fact", node="f") + """
WITH e, entities, collect(DISTINCT f {.uid, .subject, .predicate, .object, .valid_from, .valid_until,
     .status})[..$limit] AS facts
OPTIONAL MATCH (m:Message {user_id: $user_id})-[:MENTIONS]->(e)
WHERE """ + memory_cypher.kept(label="Message", node="m") + """
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


# --- retention --------------------------------------------------------------------------------
# What memory.cypher.kept() leaves out of every read is what these find and delete ($cutoffs: the
# person's own, category -> oldest moment kept).


def _expired(label: str) -> str:
    return f"NOT {memory_cypher.kept(label=label, node='n')}"


# How many of a person's nodes of one label are past retention: the dry run, and the residue check.
EXPIRED_COUNTS = {label: f"MATCH (n:{label} {{user_id: $user_id}}) WHERE {_expired(label)} RETURN count(n) AS n"
                  for label in RETAINED_LABELS}

# A batch of expired facts, preferences or entities; the groups of facts and preferences are returned
# so that what stays in them is settled again, and the uids, so that their corrections go too.
EXPIRED_DERIVED_DELETE = {label: f"""
MATCH (n:{label} {{user_id: $user_id}}) WHERE {_expired(label)}
WITH n LIMIT $batch
WITH collect(n) AS batch
CALL (batch) {{
  UNWIND batch AS n
  WITH n WHERE (n:Fact OR n:Preference) AND n.first_key IS NOT NULL
  RETURN collect(DISTINCT {{label: CASE WHEN n:Fact THEN 'Fact' ELSE 'Preference' END,
         key: CASE WHEN n:Fact THEN toLower(n.subject) ELSE n.topic END, predicate: n.predicate,
         exclusive: n:Preference OR n.cardinality = 'single'}}) AS groups
}}
WITH batch, groups, [n IN batch | n.uid] AS uids
FOREACH (n IN batch | DETACH DELETE n)
RETURN size(batch) AS deleted, groups, uids
""" for label in ("Fact", "Preference", "Entity")}

# The oldest batch of expired messages (oldest first, so a conversation only ever loses the start of
# its chain), with what was derived from them alone: facts and preferences no other message states,
# entities no other message mentions and no fact is about. The conversation's first message is the
# oldest one left. Groups of what stays are returned to be settled again.
EXPIRED_MESSAGES_DELETE = """
MATCH (n:Message {user_id: $user_id}) WHERE """ + _expired("Message") + """
WITH n ORDER BY n.created_at, n.seq LIMIT $batch
WITH collect(n) AS batch
CALL (batch) {
  UNWIND batch AS m
  MATCH (d)-[:EXTRACTED_FROM]->(m)
  WHERE (d:Fact OR d:Preference) AND d.first_key IS NOT NULL
  RETURN collect(DISTINCT {label: CASE WHEN d:Fact THEN 'Fact' ELSE 'Preference' END,
         key: CASE WHEN d:Fact THEN toLower(d.subject) ELSE d.topic END, predicate: d.predicate,
         exclusive: d:Preference OR d.cardinality = 'single'}) AS groups
}
CALL (batch) {
  UNWIND batch AS m
  MATCH (d)-[:EXTRACTED_FROM]->(m)
  WHERE (d:Fact OR d:Preference) AND NOT EXISTS { MATCH (d)-[:EXTRACTED_FROM]->(other:Message) WHERE NOT other IN batch }
  WITH DISTINCT d
  WITH d, d.uid AS uid, d:Fact AS fact
  DETACH DELETE d
  RETURN count(CASE WHEN fact THEN 1 END) AS facts, count(CASE WHEN NOT fact THEN 1 END) AS preferences,
         collect(uid) AS uids
}
CALL (batch) {
  UNWIND batch AS m
  MATCH (m)-[:MENTIONS]->(e:Entity)
  WHERE NOT EXISTS { MATCH (other:Message)-[:MENTIONS]->(e) WHERE NOT other IN batch }
    AND NOT EXISTS { MATCH (:Fact)-[:ABOUT]->(e) }
  WITH DISTINCT e
  DETACH DELETE e
  RETURN count(*) AS orphans
}
CALL (batch) {
  UNWIND batch AS m
  MATCH (c:Conversation)-[:HAS_MESSAGE]->(m)
  RETURN collect(DISTINCT c) AS conversations
}
FOREACH (m IN batch | DETACH DELETE m)
WITH batch, groups, facts, preferences, uids, orphans, conversations
CALL (conversations) {
  UNWIND conversations AS c
  WITH c WHERE NOT (c)-[:FIRST_MESSAGE]->()
  MATCH (c)-[:HAS_MESSAGE]->(head:Message)
  WITH c, head ORDER BY head.seq
  WITH c, collect(head)[0] AS first
  CREATE (c)-[:FIRST_MESSAGE]->(first)
  RETURN count(*) AS relinked
}
RETURN size(batch) AS messages, facts, preferences, orphans AS entities, groups, uids
"""

# A batch of expired traces with their steps and tool calls.
EXPIRED_TRACES_DELETE = """
MATCH (n:ReasoningTrace {user_id: $user_id}) WHERE """ + _expired("ReasoningTrace") + """
WITH n LIMIT $batch
OPTIONAL MATCH (n)-[:HAS_STEP]->(step:ReasoningStep)
OPTIONAL MATCH (step)-[:HAS_TOOL_CALL]->(call:ToolCall)
WITH n, collect(DISTINCT step) + collect(DISTINCT call) AS parts
FOREACH (p IN parts | DETACH DELETE p)
DETACH DELETE n
RETURN count(*) AS traces, count(*) + sum(size(parts)) AS deleted
"""

# The person's conversations of these sessions, to link what an agent read to the conversation it served.
CONVERSATIONS_OF_SESSIONS = """
MATCH (c:Conversation {user_id: $user_id}) WHERE c.session_id IN $sessions
RETURN c.session_id AS session_id, c.uid AS uid, c.title AS title
"""
