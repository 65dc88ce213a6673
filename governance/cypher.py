"""Raw Cypher of the governance app: export pages, the erasure's content fingerprints and residue scans, as named
constants.

Labels are never taken from input: they come from memory's registry of kinds (memory.kinds) or from the database's
own `db.labels()`, and are quoted (portal.graphdb.quoted) by the functions that take one.
"""

from portal.graphdb import quoted

# Vector properties are derived from the text and omitted from exports.
EMBEDDING_PROPERTIES = ["embedding", "embedding_int8", "sentence_embeddings_int8", "task_embedding"]

LABELS = "CALL db.labels() YIELD label RETURN label ORDER BY label"
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


# Where the server keeps its files: the byte-level scan reads them when they are on this machine.
DIRECTORIES = """
CALL dbms.listConfig() YIELD name, value
WHERE name STARTS WITH 'server.directories.' OR name = 'initial.dbms.default_database'
RETURN name, value
"""

# The store compaction the repository's launcher offers (tools/neo4j/Neo4jLauncher.java); another server has none.
STORE_COMPACT_OFFERED = "SHOW PROCEDURES YIELD name WHERE name = 'portal.storeCompact' RETURN count(*) > 0 AS offered"
STORE_COMPACT = "CALL portal.storeCompact() YIELD compaction RETURN compaction"
STORE_COMPACTION = "CALL portal.storeCompaction() YIELD compaction RETURN compaction"


# Each node is counted, and exported, under its first label only.
def count(label: str) -> str:
    return "MATCH (n:" + quoted(label) + " {user_id: $user_id}) WHERE head(labels(n)) = $label RETURN count(n) AS n"


# A page of one label's nodes in uid order, without vectors; then the same page's outgoing relationships.
_PAGE = """
WITH n, coalesce(n.uid, elementId(n)) AS key
WHERE head(labels(n)) = $label AND ($after IS NULL OR key > $after)
WITH n, key ORDER BY key LIMIT $limit
"""


def node_page(label: str) -> str:
    return ("MATCH (n:" + quoted(label) + " {user_id: $user_id})" + _PAGE
            + "RETURN key, labels(n) AS labels, [k IN keys(n) WHERE NOT k IN $skip | [k, n[k]]] AS properties\n")


def relationship_page(label: str) -> str:
    return ("MATCH (n:" + quoted(label) + " {user_id: $user_id})" + _PAGE + """OPTIONAL MATCH (n)-[r]->(m)
RETURN key, type(r) AS type, properties(r) AS properties, coalesce(m.uid, elementId(m)) AS target,
       labels(m) AS target_labels
""")


# The distinct texts of one label's content properties on the subject's nodes (a list, as aliases, is
# flattened), read through the label's user_id index.
def content_texts(label: str) -> str:
    return "MATCH (n:" + quoted(label) + """ {user_id: $user_id})
UNWIND [k IN $properties WHERE n[k] IS NOT NULL | n[k]] AS value
UNWIND CASE WHEN value IS :: LIST<ANY> THEN value ELSE [value] END AS text
WITH text WHERE text IS :: STRING
RETURN DISTINCT text
"""



# The texts and the first components of the vectors of one label's nodes of the subject: what the byte-level scan
# looks for after the erasure (governance.disk).
def needle_sources(label: str) -> str:
    return "MATCH (n:" + quoted(label) + """ {user_id: $user_id})
RETURN [k IN $properties WHERE n[k] IS NOT NULL | n[k]] AS texts,
       [k IN $vectors WHERE n[k] IS NOT NULL | n[k][0..16]] AS vectors
"""
