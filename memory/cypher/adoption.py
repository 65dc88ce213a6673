"""Raw Cypher of adopt_nam: reading the graph neo4j-agent-memory (NAM) wrote and making it the portal's.

NAM's nodes carry `id` and no `user_id`; the reads below find them by that absence, so a re-run finds
only what is still unowned. Writes address nodes by element id, found by the reads of the same run.
"""

from portal.graphdb import quoted

# The labels of memory nodes: whatever of these has no user_id is unowned.
MEMORY_LABELS = ("User", "Conversation", "Message", "Entity", "Fact", "Preference", "ReasoningTrace",
                 "ReasoningStep", "ToolCall")
# The POLE+O labels NAM adds beside :Entity; the portal keeps the type in `type` only.
NAM_ENTITY_LABELS = ("Person", "Organization", "Location", "Event", "Object")

UNOWNED_COUNTS = """
MATCH (n) WHERE n.user_id IS NULL AND any(label IN labels(n) WHERE label IN $labels)
UNWIND [label IN labels(n) WHERE label IN $labels] AS label
RETURN label, count(*) AS count ORDER BY label
"""

UNOWNED_NODES = """
MATCH (n) WHERE n.user_id IS NULL AND any(label IN labels(n) WHERE label IN $labels)
RETURN elementId(n) AS node, [label IN labels(n) WHERE label IN $labels][0] AS label, n.id AS nam_id
"""

# Nodes NAM writes that hold no one's memory (tool statistics, its schema markers), reported as such.
NOT_MEMORY_COUNTS = """
MATCH (n) WHERE n:Tool OR n:SchemaMigration OR n:OntologyVersion OR n:Ontology
RETURN labels(n)[0] AS label, count(*) AS count ORDER BY label
"""

# Every NAM user, adopted or not: later NAM writes still hang off an adopted User.
NAM_USERS = """
MATCH (u:User) WHERE u.identifier IS NOT NULL
RETURN elementId(u) AS node, u.identifier AS identifier, u.id AS nam_id, u.user_id AS user_id,
       u.attributes_json AS attributes
"""

# How the subject was known to neo4j-agent-memory: the identifier, NAM's id and the attributes (its name)
# of their User node, adopted or not: NAM's facts and entities name a person by these, not by user_id.
NAM_REFERENCES = """
MATCH (u:User) WHERE u.identifier IS NOT NULL AND (u.user_id = $user_id OR (u.user_id IS NULL AND u.identifier = $user_id))
RETURN u.identifier AS identifier, u.id AS nam_id, u.attributes_json AS attributes
"""

# Whether this person's User node came from NAM (it holds NAM's identifier): NAM may still write for them.
NAM_USER_ADOPTED = "MATCH (u:User {user_id: $user_id}) WHERE u.identifier IS NOT NULL RETURN count(u) > 0 AS nam"

# The portal's own User node of a person, when they used the portal before adoption.
PORTAL_USERS = """
MATCH (u:User) WHERE u.user_id IN $user_ids AND u.identifier IS NULL
RETURN u.user_id AS user_id, elementId(u) AS node
"""

NAM_CONVERSATIONS = """
MATCH (c:Conversation) WHERE c.user_id IS NULL
RETURN elementId(c) AS node, c.id AS nam_id, c.session_id AS session_id, c.user_identifier AS user_identifier,
       [(u:User)-[:HAS_CONVERSATION]->(c) | u.identifier] AS identifiers
"""

# The longest NEXT_MESSAGE path from each conversation's FIRST_MESSAGE: the order NAM said them in.
MESSAGE_CHAINS = """
MATCH (c:Conversation)-[:HAS_MESSAGE]->(m:Message) WHERE m.user_id IS NULL
WITH DISTINCT c
MATCH (c)-[:FIRST_MESSAGE]->(first:Message)
MATCH chain = (first)-[:NEXT_MESSAGE*0..]->(last:Message)
WHERE NOT (last)-[:NEXT_MESSAGE]->()
WITH c, chain ORDER BY length(chain) DESC
WITH c, collect(chain)[0] AS chain
RETURN elementId(c) AS conversation, c.user_id AS user_id, c.last_seq AS last_seq,
       [m IN nodes(chain) | elementId(m)] AS chain
"""

NAM_MESSAGES = """
MATCH (m:Message) WHERE m.user_id IS NULL
RETURN elementId(m) AS node, m.id AS nam_id, m.role AS role, m.content AS content, m.timestamp AS timestamp,
       size(m.embedding) AS dimensions,
       [(c:Conversation)-[:HAS_MESSAGE]->(m) | {node: elementId(c), user_id: c.user_id}] AS conversations
"""

# An entity belongs to whoever wrote the messages that mention it or that it was extracted from.
NAM_ENTITIES = """
MATCH (e:Entity) WHERE e.user_id IS NULL
RETURN elementId(e) AS node, e.id AS nam_id, e.name AS name, e.type AS type, e.aliases AS aliases,
       e.canonical_name AS canonical_name, e.description AS description, size(e.embedding) AS dimensions,
       [(m:Message)-[:MENTIONS]->(e) | {node: elementId(m), user_id: m.user_id}]
       + [(e)-[:EXTRACTED_FROM]->(m:Message) | {node: elementId(m), user_id: m.user_id}] AS messages
"""

# Entity uids the portal derives from person, type and name, already held by a node.
ENTITY_UIDS_TAKEN = """
OPTIONAL MATCH (e:Entity) WHERE e.uid IN $uids
RETURN collect(e.uid) AS uids
"""

NAM_PREFERENCES = """
MATCH (p:Preference) WHERE p.user_id IS NULL
RETURN elementId(p) AS node, p.id AS nam_id, p.category AS category, p.preference AS preference,
       p.created_at AS created_at, size(p.embedding) AS dimensions,
       [(u:User)-[:HAS_PREFERENCE]->(p) | u.identifier] AS identifiers
"""

NAM_FACTS = """
MATCH (f:Fact) WHERE f.user_id IS NULL
RETURN elementId(f) AS node, f.id AS nam_id, f.subject AS subject, f.predicate AS predicate, f.object AS object,
       f.created_at AS created_at, f.valid_from AS valid_from, f.valid_until AS valid_until,
       size(f.embedding) AS dimensions,
       [(f)-[:EXTRACTED_FROM]->(m:Message) | {node: elementId(m), user_id: m.user_id}] AS messages
"""

# A trace with its steps and their tool calls (NAM links them with USES_TOOL, the portal HAS_TOOL_CALL).
NAM_TRACES = """
MATCH (t:ReasoningTrace) WHERE t.user_id IS NULL
RETURN elementId(t) AS node, t.id AS nam_id, t.session_id AS session_id, t.task AS task,
       t.user_identifier AS user_identifier, size(t.task_embedding) AS dimensions,
       [(u:User)-[:HAS_TRACE]->(t) | u.identifier] AS identifiers,
       [(t)-[:HAS_STEP]->(s:ReasoningStep) | {node: elementId(s), nam_id: s.id, timestamp: s.timestamp,
         calls: [(s)-[:USES_TOOL|HAS_TOOL_CALL]->(c:ToolCall) | {node: elementId(c), nam_id: c.id,
                                                               timestamp: c.timestamp}]}] AS steps
"""

# SAME_AS and RELATED_TO with an unowned end: split with the entities they join.
# Links that must join one person's nodes: an entity's to another (SAME_AS, RELATED_TO), a preference's
# to the entity it is scoped to or about (NAM's APPLIES_TO, and ABOUT from LINK_PREFERENCE_TO_ENTITY).
LINK_TYPES = ("SAME_AS", "RELATED_TO", "APPLIES_TO", "ABOUT")
NAM_ENTITY_LINKS = """
MATCH (a)-[r:SAME_AS|RELATED_TO|APPLIES_TO|ABOUT]->(b:Entity)
WHERE (a.user_id IS NULL OR b.user_id IS NULL)
  AND ((a:Entity AND type(r) IN ['SAME_AS', 'RELATED_TO']) OR (a:Preference AND type(r) IN ['APPLIES_TO', 'ABOUT']))
RETURN elementId(r) AS rel, type(r) AS type, CASE WHEN a:Entity THEN 'Entity' ELSE 'Preference' END AS from_label,
       elementId(a) AS start, elementId(b) AS end, r.confidence AS confidence, r.match_type AS match_type
"""

# Owned memory nodes without `id` (written by the portal before it gave every node one): NAM's readers
# take every node's `id`, and fail on one without it.
IDS_MISSING = """
MATCH (n) WHERE n.id IS NULL AND n.uid IS NOT NULL AND n.user_id IS NOT NULL
  AND any(label IN labels(n) WHERE label IN $labels)
RETURN count(n) AS count
"""

# --- writes -----------------------------------------------------------------------------------

IDS_GIVE = """
MATCH (n) WHERE n.id IS NULL AND n.uid IS NOT NULL AND n.user_id IS NOT NULL
  AND any(label IN labels(n) WHERE label IN $labels)
SET n.id = n.uid
"""

NODES_ADOPT = """
UNWIND $rows AS row
MATCH (n) WHERE elementId(n) = row.node
SET n += row.properties
"""

# One User node per person: NAM's hands its links to the portal's and goes; the portal's takes its
# identifier (and id), so NAM's next MERGE on the identifier finds the person's one node.
USERS_MERGE = """
UNWIND $rows AS row
MATCH (nam:User) WHERE elementId(nam) = row.node
MATCH (mine:User) WHERE elementId(mine) = row.into
CALL (nam, mine) {
  MATCH (nam)-[old:HAS_CONVERSATION]->(c) MERGE (mine)-[:HAS_CONVERSATION]->(c) DELETE old
  RETURN count(*) AS conversations
}
CALL (nam, mine) {
  MATCH (nam)-[old:HAS_PREFERENCE]->(p) MERGE (mine)-[:HAS_PREFERENCE]->(p) DELETE old
  RETURN count(*) AS preferences
}
CALL (nam, mine) {
  MATCH (nam)-[old:HAS_TRACE]->(t) MERGE (mine)-[:HAS_TRACE]->(t) DELETE old
  RETURN count(*) AS traces
}
WITH nam, mine, nam.identifier AS identifier, nam.id AS id, nam.attributes_json AS attributes
DETACH DELETE nam
SET mine.identifier = identifier, mine.id = id, mine.nam_id = id, mine.attributes_json = attributes
"""

# A copy for one more person of a node NAM shared between people: NAM's `id` stays on the original
# only (its uniqueness constraint, which Neo4j checks as each property is set: the copy never holds
# it), the copy keeps it as nam_id and takes its own uid as `id`, which NAM's readers need.
def _node_copy(label: str) -> str:
    return """
UNWIND $rows AS row
MATCH (n:""" + label + """) WHERE elementId(n) = row.node
CREATE (copy:""" + label + """)
SET copy = n {.*, id: null}
SET copy += row.properties
SET copy.id = copy.uid
RETURN row.node AS node, row.properties.user_id AS user_id, elementId(copy) AS copy
"""


NODE_COPY = {label: _node_copy(label) for label in ("Entity", "Preference")}

# Each person's own links move to that person's copy: `copy` and each row are in scope for the move.
_TO_COPY = """
UNWIND $rows AS row
MATCH (copy) WHERE elementId(copy) = row.copy
"""
_MOVED = """SET moved = properties(old)
DELETE old
"""
MENTIONS_MOVE = _TO_COPY + """MATCH (m:Message {user_id: row.user_id})-[old:MENTIONS]->(n) WHERE elementId(n) = row.node
CREATE (m)-[moved:MENTIONS]->(copy)
""" + _MOVED

SOURCES_MOVE = _TO_COPY + """MATCH (n)-[old:EXTRACTED_FROM]->(m:Message {user_id: row.user_id}) WHERE elementId(n) = row.node
CREATE (copy)-[moved:EXTRACTED_FROM]->(m)
""" + _MOVED

PREFERENCE_OWNERS_MOVE = _TO_COPY + """MATCH (u:User {user_id: row.user_id})-[old:HAS_PREFERENCE]->(n) WHERE elementId(n) = row.node
CREATE (u)-[:HAS_PREFERENCE]->(copy)
DELETE old
"""

# NAM records where an entity came from as (Entity)-[:EXTRACTED_FROM]->(Message) and positions as
# start_pos/end_pos; the portal has one link, (Message)-[:MENTIONS {confidence, start, end}]->(Entity).
ENTITY_SOURCES_MAP = """
UNWIND $nodes AS node
MATCH (e:Entity) WHERE elementId(e) = node
CALL (e) {
  MATCH (e)-[old:EXTRACTED_FROM]->(m:Message)
  MERGE (m)-[r:MENTIONS]->(e)
    ON CREATE SET r.confidence = old.confidence, r.start = old.start_pos, r.end = old.end_pos
  DELETE old
  RETURN count(*) AS sourced
}
CALL (e) {
  MATCH (:Message)-[r:MENTIONS]->(e) WHERE r.start_pos IS NOT NULL OR r.end_pos IS NOT NULL
  SET r.start = coalesce(r.start, r.start_pos), r.end = coalesce(r.end, r.end_pos)
  REMOVE r.start_pos, r.end_pos
  RETURN count(*) AS renamed
}
RETURN count(*) AS mapped
"""

ENTITY_LABELS_DROP = """
UNWIND $nodes AS node
MATCH (n:Entity) WHERE elementId(n) = node
REMOVE n:""" + ":".join(NAM_ENTITY_LABELS)

# A link copied between the copies that belong to the same person; the portal reads a merge's scores
# and evidence as JSON.
def _link_copy(type_: str) -> str:
    return """
UNWIND $rows AS row
MATCH ()-[r:""" + type_ + """]->() WHERE elementId(r) = row.rel
MATCH (a) WHERE elementId(a) = row.start
MATCH (b) WHERE elementId(b) = row.end
CREATE (a)-[copy:""" + type_ + """]->(b)
SET copy = properties(r), copy += row.properties
"""


LINK_COPY = {type_: _link_copy(type_) for type_ in LINK_TYPES}

LINKS_ADOPT = """
UNWIND $rows AS row
MATCH ()-[r]->() WHERE elementId(r) = row.rel
SET r += row.properties
"""

LINKS_DELETE = """
UNWIND $rels AS rel
MATCH ()-[r]->() WHERE elementId(r) = rel
DELETE r
"""

# The portal hangs a trace off its conversation (NAM off the User): made when NAM had none for it.
TRACES_LINK = """
UNWIND $rows AS row
MATCH (t:ReasoningTrace) WHERE elementId(t) = row.node
MERGE (u:User {user_id: row.user_id})
  ON CREATE SET u.uid = randomUUID(), u.created_at = datetime()
MERGE (c:Conversation {user_id: row.user_id, session_id: row.session_id})
  ON CREATE SET c.uid = row.conversation_uid, c.created_at = t.started_at, c.last_seq = 0
MERGE (u)-[:HAS_CONVERSATION]->(c)
MERGE (c)-[:HAS_TRACE]->(t)
WITH t
OPTIONAL MATCH (:User)-[old:HAS_TRACE]->(t)
DELETE old
"""

TOOL_CALLS_LINK = """
UNWIND $nodes AS node
MATCH (s:ReasoningStep)-[old:USES_TOOL]->(c:ToolCall) WHERE elementId(c) = node
MERGE (s)-[:HAS_TOOL_CALL]->(c)
DELETE old
"""

# Every vector index, with the one label and property it covers and its size.
VECTOR_INDEXES = """
SHOW VECTOR INDEXES YIELD name, labelsOrTypes, properties, options
RETURN name, labelsOrTypes[0] AS label, properties[0] AS property,
       options.indexConfig['vector.dimensions'] AS dimensions
"""

# Owned nodes of one label whose vector is not of the embedder's size: what adopt_nam has yet to recompute.
def vectors_of_another_size(label: str) -> str:
    return ("MATCH (n:" + quoted(label) + ") WHERE n.user_id IS NOT NULL AND n[$property] IS NOT NULL "
            "AND size(n[$property]) <> $dimensions\nRETURN count(n) AS count\n")


def index_drop(name: str) -> str:
    """Return the statement that drops one index, its name (read from SHOW INDEXES) quoted."""

    return "DROP INDEX " + quoted(name) + " IF EXISTS"
