"""Raw Cypher of the memory app, as named constants with $parameters.

Every query that serves a subject matches on `user_id`. Vector recall scores the subject's own nodes
(found through the `user_id` index) with vector.similarity.cosine, or, for a person with many messages
on Neo4j 2026.01+, asks a vector index that filters by `user_id` inside it: either way other tenants
can never crowd a user's best matches out of an approximate top-k. Fulltext indexes include
`user_id` as a field, so the Lucene query itself is tenant-filtered too.
"""

SCHEMA = [
    # Words stemmed ("painted" finds "painting"): recall by words on chat held-out by rotation rose by 3 points.
    "CREATE FULLTEXT INDEX message_words IF NOT EXISTS FOR (m:Message) ON EACH [m.content, m.user_id] "
    "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}",
    "CREATE FULLTEXT INDEX entity_names IF NOT EXISTS FOR (e:Entity) ON EACH [e.name, e.aliases, e.user_id]",
    "CREATE FULLTEXT INDEX fact_text IF NOT EXISTS FOR (f:Fact) ON EACH [f.subject, f.predicate, f.object, f.user_id]",
    "CREATE INDEX conversation_user_session IF NOT EXISTS FOR (c:Conversation) ON (c.user_id, c.session_id)",
    "CREATE INDEX message_user_client IF NOT EXISTS FOR (m:Message) ON (m.user_id, m.client_id)",
    # A person's messages by time: the newest first for the query focus, a span for the time branch.
    "CREATE INDEX message_user_created IF NOT EXISTS FOR (m:Message) ON (m.user_id, m.created_at)",
    "CREATE INDEX preference_user_topic IF NOT EXISTS FOR (p:Preference) ON (p.user_id, p.topic)",
    "CREATE INDEX preference_user_topic_key IF NOT EXISTS FOR (p:Preference) ON (p.user_id, p.topic_key)",
    # One entity per person, type and normal name, even if a writer derived another uid for it.
    "CREATE CONSTRAINT entity_person_type_key IF NOT EXISTS FOR (e:Entity) REQUIRE (e.user_id, e.type, e.key) IS UNIQUE",
]

# Where the server filters vector searches inside the index (Neo4j 2026.01+, portal.graphdb
# .vector_search_filters): messages by person and time, so recall need not score all of a person's messages.
FILTERED_VECTOR_INDEXES = ("message_embedding_filtered",)
SCHEMA_VECTOR_FILTERED = [
    "CYPHER 25 CREATE VECTOR INDEX message_embedding_filtered IF NOT EXISTS FOR (m:Message) ON m.embedding "
    "WITH [m.user_id, m.created_at] OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, "
    "`vector.similarity_function`: 'cosine'}}",
]

# Memory's vector indexes under the names neo4j-agent-memory gives them: Neo4j allows one vector index
# per label and property, so a NAM agent (which searches them by name) and the portal share each one.
VECTOR_INDEXES = (
    ("message_embedding_idx", "Message", "embedding"),
    ("entity_embedding_idx", "Entity", "embedding"),
    ("preference_embedding_idx", "Preference", "embedding"),
    ("fact_embedding_idx", "Fact", "embedding"),
    ("task_embedding_idx", "ReasoningTrace", "task_embedding"),
)
SCHEMA_VECTOR = [
    f"CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (n:{label}) ON (n.{prop}) "
    "OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}"
    for name, label, prop in VECTOR_INDEXES
]

# Indexes an older install made that a constraint now replaces (Neo4j refuses the constraint beside
# them), the unstemmed message index message_words replaced, and the vector indexes it made under
# neomodel's names before they took NAM's.
SCHEMA_REPLACED = ["DROP INDEX index_User_user_id IF EXISTS", "DROP INDEX message_content IF EXISTS"] + [
    f"DROP INDEX vector_index_{label}_{prop} IF EXISTS" for _, label, prop in VECTOR_INDEXES]

# --- writes -----------------------------------------------------------------------------------

# neo4j-agent-memory reads every node by `id` (a UUID): each node the portal writes carries its uid as
# `id` too, so an agent still on NAM can read what the portal wrote (one a NAM agent wrote keeps NAM's).
_NAM_ID = "FOREACH (_ IN CASE WHEN {node}.id IS NULL THEN [1] ELSE [] END | SET {node}.id = {node}.uid)"

# The last message of conversation `c`'s chain, as `tail`: the one the conversation names (c.tail_uid,
# set by every append) while it still ends the chain, else found by reading every message (a
# conversation another library wrote, or whose last message a deletion took): the cost of finding it
# does not grow with the conversation.
_CONVERSATION_TAIL = """
CALL (c) {
  OPTIONAL MATCH (known:Message {uid: c.tail_uid}) USING INDEX known:Message(uid)
  WHERE (c)-[:HAS_MESSAGE]->(known) AND NOT (known)-[:NEXT_MESSAGE]->()
  CALL (c, known) {
    WITH c, known WHERE known IS NULL
    MATCH (c)-[:HAS_MESSAGE]->(last:Message) WHERE NOT (last)-[:NEXT_MESSAGE]->()
    RETURN collect(last)[0] AS scanned
  }
  RETURN coalesce(known, scanned) AS tail
}
"""
# How far back from the tail a walk along the chain may go: the most messages an append repeats-check
# looks at (two per message of a batch of 100) and more than the longest history a context reads.
CHAIN_WALK_MAX = 200

# The person's node is locked first, as every extraction write locks it first (PERSON_WRITE_LOCK):
# one lock order, so an append and a worker never deadlock.
CONVERSATION_MERGE = """
MERGE (u:User {user_id: $user_id})
  ON CREATE SET u.uid = randomUUID(), u.created_at = datetime()
SET u._lock = true REMOVE u._lock
MERGE (c:Conversation {user_id: $user_id, session_id: $session_id})
  ON CREATE SET c.uid = randomUUID(), c.agent_id = $agent_id, c.created_at = datetime(), c.last_seq = 0
MERGE (u)-[:HAS_CONVERSATION]->(c)
""" + _NAM_ID.format(node="c") + """
WITH c
// The time of the last message (a new one may not be said before it), and the messages already stored
// that the new batch might repeat: by client id (through its index), or by content among the last few.
""" + _CONVERSATION_TAIL + """
CALL (c) {
  MATCH (m:Message) USING INDEX m:Message(client_id)
  WHERE m.client_id IN $client_ids AND m.user_id = $user_id AND (c)-[:HAS_MESSAGE]->(m)
  RETURN collect([m.uid, m.seq, m.client_id, m.content_hash]) AS by_client
}
CALL (c, tail) {  // the last few first, then their hashes: no seek of every message with a common hash
  MATCH (m:Message)-[:NEXT_MESSAGE*0..""" + str(CHAIN_WALK_MAX) + """]->(tail)
  WHERE m.seq > c.last_seq - $window
  WITH collect(m) AS last
  RETURN [m IN last WHERE m.content_hash IN $hashes | [m.uid, m.seq, m.client_id, m.content_hash]] AS by_content
}
RETURN c.uid AS uid, tail.created_at AS last_created_at, by_client + by_content AS seen,
       tail IS NULL OR tail.speaker IS NOT NULL AS labelling
"""

# Locks the conversation node first (SET), so the tail read after it is the committed one even if
# two writers got past the Redis lock: the chain cannot fork.
MESSAGES_APPEND = """
MATCH (c:Conversation {uid: $conversation_uid, user_id: $user_id})
SET c._lock = coalesce(c._lock, 0) + 1
WITH c
""" + _CONVERSATION_TAIL + """
WITH c, tail
UNWIND range(0, size($messages) - 1) AS i
WITH c, tail, i, $messages[i] AS row
CREATE (m:Message {
  uid: randomUUID(), user_id: $user_id, role: row.role, content: row.content, speaker: row.speaker,
  seq: c.last_seq + i + 1, client_id: row.client_id, content_hash: row.content_hash, agent_id: $agent_id,
  created_at: row.created_at, stored_at: datetime(), extraction_status: 'pending', explicit: row.explicit
})
// What neo4j-agent-memory reads a message by, and orders by: a batch said at one moment, a microsecond apart.
SET m.id = m.uid, m.timestamp = row.created_at + duration({microseconds: i})
CREATE (c)-[:HAS_MESSAGE]->(m)
WITH c, tail, collect(m) AS created
SET c.last_seq = c.last_seq + size(created), c.tail_uid = last(created).uid
WITH c, tail, created
CALL (c, tail, created) {
  WITH c, tail, created WHERE tail IS NULL
  WITH c, created[0] AS first
  CREATE (c)-[:FIRST_MESSAGE]->(first)
  RETURN count(*) AS first_linked
}
CALL (tail, created) {
  WITH tail, created WHERE tail IS NOT NULL
  WITH tail, created[0] AS head
  CREATE (tail)-[:NEXT_MESSAGE]->(head)
  RETURN count(*) AS tail_linked
}
CALL (created) {
  UNWIND range(0, size(created) - 2) AS i
  WITH created[i] AS a, created[i + 1] AS b
  CREATE (a)-[:NEXT_MESSAGE]->(b)
  RETURN count(*) AS chained
}
UNWIND created AS m
RETURN m.uid, m.seq, m.client_id, m.content_hash
ORDER BY m.seq
"""

# Forgetting a message: the four steps below run in one transaction. The chain stays linked
# around the gap (and ends at the message before it, when it was the last); facts and preferences
# extracted from it alone go, and so do entities that nothing else mentions or is about.
MESSAGE_UNLINK = """
MATCH (m:Message {uid: $uid, user_id: $user_id})
OPTIONAL MATCH (prev:Message)-[:NEXT_MESSAGE]->(m)
OPTIONAL MATCH (m)-[:NEXT_MESSAGE]->(next:Message)
OPTIONAL MATCH (c:Conversation)-[:FIRST_MESSAGE]->(m)
OPTIONAL MATCH (owner:Conversation {tail_uid: m.uid})-[:HAS_MESSAGE]->(m)
FOREACH (_ IN CASE WHEN prev IS NOT NULL AND next IS NOT NULL THEN [1] ELSE [] END |
  CREATE (prev)-[:NEXT_MESSAGE]->(next))
FOREACH (_ IN CASE WHEN c IS NOT NULL AND next IS NOT NULL THEN [1] ELSE [] END |
  CREATE (c)-[:FIRST_MESSAGE]->(next))
FOREACH (_ IN CASE WHEN owner IS NOT NULL THEN [1] ELSE [] END | SET owner.tail_uid = prev.uid)
RETURN count(m)
"""

MESSAGE_DERIVED_DELETE = """
MATCH (d)-[:EXTRACTED_FROM]->(m:Message {uid: $uid, user_id: $user_id})
WHERE (d:Fact OR d:Preference)
  AND NOT EXISTS { MATCH (d)-[:EXTRACTED_FROM]->(other:Message) WHERE other <> m }
DETACH DELETE d
RETURN count(*)
"""

MESSAGE_ORPHANS_DELETE = """
MATCH (m:Message {uid: $uid, user_id: $user_id})-[:MENTIONS]->(e:Entity)
WHERE NOT EXISTS { MATCH (other:Message)-[:MENTIONS]->(e) WHERE other <> m }
  AND NOT EXISTS { MATCH (:Fact)-[:ABOUT]->(e) }
DETACH DELETE e
RETURN count(*)
"""

# --- retention ---------------------------------------------------------------------------------

# How old an item is for retention: a message from when it was said, a trace from when it started;
# a fact, preference or entity from the newest message that still supports it, so what a newer
# message says again stays, else (written without a message, e.g. adopted) from when it was written.
_AGE = {
    "Message": "{n}.created_at",
    "ReasoningTrace": "{n}.started_at",
    "Fact": "coalesce(COLLECT {{ MATCH ({n})-[:EXTRACTED_FROM]->(supporting:Message) RETURN max(supporting.created_at) "
            "}}[0], {n}.recorded_at)",
    "Preference": "coalesce(COLLECT {{ MATCH ({n})-[:EXTRACTED_FROM]->(supporting:Message) "
                  "RETURN max(supporting.created_at) }}[0], {n}.recorded_at, {n}.valid_from)",
    "Entity": "coalesce(COLLECT {{ MATCH (supporting:Message)-[:MENTIONS]->({n}) RETURN max(supporting.created_at) "
              "}}[0], {n}.created_at)",
}
# The oldest moment a label keeps, from the $cutoffs map (category -> moment, null keeps forever). What
# is derived from messages goes with them: long-term memory is kept no longer than history is either.
_CUTOFF = {
    "Message": "$cutoffs.history",
    "ReasoningTrace": "$cutoffs.reasoning",
    "Derived": "CASE WHEN $cutoffs.history IS NULL OR $cutoffs.long_term > $cutoffs.history THEN $cutoffs.long_term "
               "ELSE $cutoffs.history END",
}


def kept_since(*, label: str, node: str) -> str:
    """Return the expression of a node's age for retention (see _AGE)."""
    return _AGE[label].format(n=node)


def retention_cutoff(*, label: str) -> str:
    """Return the expression of the oldest moment a label's nodes are kept, null for ever."""
    return _CUTOFF.get(label, _CUTOFF["Derived"])


def kept(*, label: str, node: str) -> str:
    """Return the condition that a node is within retention (an undated node is kept); the age is not
    worked out when nothing is cut off."""
    cutoff = retention_cutoff(label=label)
    return f"({cutoff} IS NULL OR coalesce({kept_since(label=label, node=node)} >= {cutoff}, true))"


# Any memory node, with the parts that exist only for it (trace steps, tool calls); one query per
# label (built once per kind in memory.kinds) so that the uid constraint's index is used.
_NODE_DELETE = """
MATCH (n:{label} {{uid: $uid, user_id: $user_id}})
OPTIONAL MATCH (n)-[:HAS_STEP]->(step:ReasoningStep)
OPTIONAL MATCH (step)-[:HAS_TOOL_CALL]->(call:ToolCall)
WITH n, collect(DISTINCT step) + collect(DISTINCT call) AS parts
FOREACH (p IN parts | DETACH DELETE p)
DETACH DELETE n
RETURN 1 + size(parts) AS deleted
"""

# A page of one kind, newest first; the cursor is the last row's (sort time, uid), so pages never overlap.
# Sort times are compared at offset Z, as the cursor's is: a time written back through the driver carries
# the zone id UTC, which Cypher orders apart from the same instant at Z, so a cursor on a tie skipped the rest of it.
# Items past their retention are left out, whether or not the periodic job has deleted them yet; so are
# retracted versions (a fact or preference a correction or a revert replaced) unless history is asked for.
_ITEM_LIST = """
MATCH (n:{label} {{user_id: $user_id}})
WHERE $include_retracted OR coalesce(n.status, '') <> 'retracted'
WITH n, CASE WHEN n.{order} IS :: ZONED DATETIME NOT NULL THEN datetime({{datetime: n.{order}, timezone: 'Z'}})
            ELSE n.{order} END AS t
WHERE $after_t IS NULL OR t < $after_t OR (t = $after_t AND n.uid < $after_uid)
WITH n, t, {age} AS kept_since
WHERE {cutoff} IS NULL OR coalesce(kept_since >= {cutoff}, true)
RETURN n.uid AS uid, t AS sort_key, kept_since, {{{projection}}} AS item
ORDER BY t DESC, n.uid DESC LIMIT $limit
"""

_ITEM_GET = """
MATCH (n:{label} {{uid: $uid, user_id: $user_id}})
WITH n, {age} AS kept_since
WHERE {cutoff} IS NULL OR coalesce(kept_since >= {cutoff}, true)
RETURN n.uid AS uid, kept_since, {{{projection}}} AS item
"""


def node_delete(*, label: str) -> str:
    return _NODE_DELETE.format(label=label)


def item_list(*, label: str, order: str, fields: tuple[str, ...]) -> str:
    return _ITEM_LIST.format(label=label, order=order, age=kept_since(label=label, node="n"),
                             cutoff=retention_cutoff(label=label),
                             projection=", ".join(f"{f}: n.{f}" for f in fields))


def item_get(*, label: str, fields: tuple[str, ...]) -> str:
    return _ITEM_GET.format(label=label, age=kept_since(label=label, node="n"),
                            cutoff=retention_cutoff(label=label),
                            projection=", ".join(f"{f}: n.{f}" for f in fields))


# Case-insensitive search over the text of one kind of item, for the person's own pages.
MESSAGES_SEARCH = """
MATCH (n:Message {user_id: $user_id}) WHERE toLower(n.content) CONTAINS $q AND """ + kept(label="Message", node="n") + """
RETURN n.uid AS uid, n {.role, .content, .created_at} AS item ORDER BY n.created_at DESC LIMIT $limit
"""

FACTS_SEARCH = """
MATCH (n:Fact {user_id: $user_id}) WHERE toLower(n.subject + ' ' + n.predicate + ' ' + n.object) CONTAINS $q
  AND """ + kept(label="Fact", node="n") + """
RETURN n.uid AS uid, n {.subject, .predicate, .object, .status, .valid_from, .valid_until} AS item
ORDER BY n.recorded_at DESC LIMIT $limit
"""

PREFERENCES_SEARCH = """
MATCH (n:Preference {user_id: $user_id}) WHERE toLower(n.category + ' ' + n.preference) CONTAINS $q
  AND """ + kept(label="Preference", node="n") + """
RETURN n.uid AS uid, n {.category, .preference, .status} AS item ORDER BY n.valid_from DESC LIMIT $limit
"""

ENTITIES_SEARCH = """
MATCH (n:Entity {user_id: $user_id})
WHERE (toLower(n.name) CONTAINS $q OR any(a IN coalesce(n.aliases, []) WHERE toLower(a) CONTAINS $q))
  AND """ + kept(label="Entity", node="n") + """
RETURN n.uid AS uid, n {.name, .type} AS item ORDER BY n.name LIMIT $limit
"""

TRACES_SEARCH = """
MATCH (n:ReasoningTrace {user_id: $user_id}) WHERE toLower(n.task + ' ' + coalesce(n.outcome, '')) CONTAINS $q
  AND """ + kept(label="ReasoningTrace", node="n") + """
RETURN n.uid AS uid, n {.task, .outcome, .success} AS item ORDER BY n.started_at DESC LIMIT $limit
"""

TRACE_START = """
MERGE (c:Conversation {user_id: $user_id, session_id: $session_id})
  ON CREATE SET c.uid = randomUUID(), c.agent_id = $agent_id, c.created_at = datetime(), c.last_seq = 0
MERGE (u:User {user_id: $user_id})
  ON CREATE SET u.uid = randomUUID(), u.created_at = datetime()
MERGE (u)-[:HAS_CONVERSATION]->(c)
""" + _NAM_ID.format(node="c") + """
CREATE (t:ReasoningTrace {
  uid: randomUUID(), user_id: $user_id, session_id: $session_id, agent_id: $agent_id,
  task: $task, task_embedding: $embedding, started_at: datetime()
})
SET t.id = t.uid
CREATE (c)-[:HAS_TRACE]->(t)
RETURN t.uid AS uid
"""

TRACE_STEP_ADD = """
MATCH (t:ReasoningTrace {uid: $trace_uid, user_id: $user_id})
WHERE t.completed_at IS NULL
OPTIONAL MATCH (t)-[previous:HAS_STEP]->()
WITH t, coalesce(max(previous.order), 0) + 1 AS order
CREATE (s:ReasoningStep {
  uid: randomUUID(), user_id: $user_id, thought: $thought, action: $action,
  observation: $observation, created_at: datetime()
})
SET s.id = s.uid
CREATE (t)-[:HAS_STEP {order: order}]->(s)
WITH s, order
UNWIND (CASE WHEN size($tool_calls) = 0 THEN [null] ELSE $tool_calls END) AS call
CALL (s, call) {
  WITH s, call WHERE call IS NOT NULL
  CREATE (tc:ToolCall {
    uid: randomUUID(), user_id: $user_id, tool_name: call.tool_name, arguments: call.arguments,
    result: call.result, status: call.status, error: call.error, duration_ms: call.duration_ms,
    created_at: datetime()
  })
  SET tc.id = tc.uid
  CREATE (s)-[:HAS_TOOL_CALL]->(tc)
  RETURN tc.uid AS call_uid
}
RETURN s.uid AS uid, order, collect(call_uid) AS tool_call_uids
"""

TRACE_COMPLETE = """
MATCH (t:ReasoningTrace {uid: $trace_uid, user_id: $user_id})
WHERE t.completed_at IS NULL
SET t.outcome = $outcome, t.success = $success, t.completed_at = datetime()
RETURN t.uid AS uid
"""

# --- reads ------------------------------------------------------------------------------------
# Every read that serves the context leaves out what is past its retention ($cutoffs, see kept()).

# How many rows the filtered index is asked for per row wanted: it ranks approximately, by quantised
# vectors, so its candidates are re-ranked by exact cosine. 30 gave recall@10 1.000 against the exact
# scan at p95 25 ms for a person with 100,000 messages (20: 0.984; docs/benchmarks.md).
VECTOR_SEARCH_OVERFETCH = 30

# How many of the subject's newest messages (FOCUS_WINDOW, read in the order of the (user_id,
# created_at) index, so the cost does not grow with the person's memory) contain each word as written,
# and who said them: the names a conversation keeps using (the people talking, addressed by name)
# against names that pick out a few messages, and whose name it is (the one the other party addresses,
# or the one whose turns are labelled with it: "Caroline: ...").
MESSAGE_WORD_COUNTS = """
MATCH (m:Message)
WHERE m.user_id = $user_id AND m.created_at IS NOT NULL AND """ + kept(label="Message", node="m") + """
WITH m ORDER BY m.user_id DESC, m.created_at DESC LIMIT $window
WITH collect(m {.content, .role, .speaker}) AS window
UNWIND $words AS word
WITH word, window, [m IN window WHERE m.content CONTAINS word] AS hits
RETURN word, size(hits) AS messages, size([m IN hits WHERE m.role = 'user']) AS by_user,
       size([m IN hits WHERE m.role = 'assistant']) AS by_assistant,
       size([m IN hits WHERE m.speaker = word OR m.speaker STARTS WITH word + ' ']) AS labelled,
       size(window) AS total
"""

# A stated date counts from the start of its day (UTC), so that dates and moments compare.
_MOMENT = "CASE WHEN {value} IS :: DATE NOT NULL THEN datetime({{date: {value}, timezone: 'UTC'}}) ELSE {value} END"


def held_at(node: str) -> str:
    """Return the condition that a fact or preference held at $as_of, as far as is known now.

    Valid time, not the time it was written: from what was stated (else from when it was recorded)
    until it ended; a retracted one never held.
    """
    start = _MOMENT.format(value=f"coalesce({node}.valid_from, {node}.recorded_at)")
    end = _MOMENT.format(value=f"{node}.valid_until")
    return f"({start} <= $as_of AND ({node}.valid_until IS NULL OR {end} > $as_of) AND {node}.status <> 'retracted')"


# Everything a context reads, in one statement (memory.selectors.context_recall): the session's last
# turns; message recall's three branches (meaning, words, and meaning within the span a question names)
# and the turns next to what they found; current facts and preferences (or those that held at $as_of);
# entities with their neighbourhood; similar traces. Each section is a CALL that collects its rows, so
# one that finds nothing (or is not asked for in $sections) keeps the row. The query vector is sent
# once. Every section leaves out what is past its retention ($cutoffs). Messages carry
# their time as text (graphdb.moment_parsed): the driver's own DateTime costs a hundred times more to read.
_CONTEXT_READ = """
CALL () {
  OPTIONAL MATCH (c:Conversation {user_id: $user_id, session_id: $session_id}) WHERE $sections.history
  """ + _CONVERSATION_TAIL.strip() + """
  CALL (c, tail) {
    MATCH (m:Message)-[:NEXT_MESSAGE*0..""" + str(CHAIN_WALK_MAX) + """]->(tail)
    WHERE m.seq > c.last_seq - $history_limit AND """ + kept(label="Message", node="m") + """
    WITH m ORDER BY m.seq
    RETURN collect(m {.uid, .role, .content, .speaker, .seq, created_at: toString(m.created_at), session_id: c.session_id}) AS recent
  }
  RETURN coalesce(c.last_seq, 0) + 1 AS next_seq, recent
}
WITH next_seq, recent, [m IN recent | m.uid] AS exclude, @SCAN@ AS scan
CALL (exclude, scan) {
  WITH exclude, scan WHERE $sections.recall
  @VECTOR_BRANCH@
  RETURN collect({uid: m.uid, score: score}) AS vector
}
CALL (exclude, scan) {
  WITH exclude, scan WHERE $sections.recall AND $after IS NOT NULL
  @TIME_BRANCH@
  RETURN collect({uid: m.uid, score: score}) AS time
}
CALL (exclude) {
  WITH exclude WHERE $sections.recall AND $lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('message_words', $lucene, {limit: $depth}) YIELD node, score
  WHERE node.user_id = $user_id AND NOT node.uid IN exclude AND """ + kept(label="Message", node="node") + """
  RETURN collect({uid: node.uid, score: score}) AS fulltext
}
CALL (vector, time, fulltext, exclude) {
  UNWIND vector + time + fulltext AS hit
  WITH DISTINCT hit.uid AS of, exclude
  MATCH (found:Message {uid: of}) USING INDEX found:Message(uid)
  WHERE found.user_id = $user_id
  MATCH (found)-[:NEXT_MESSAGE]-(n:Message)
  WHERE n.user_id = $user_id AND NOT n.uid IN exclude AND """ + kept(label="Message", node="n") + """
  RETURN collect({of: of, uid: n.uid}) AS neighbours
}
CALL (vector, time, fulltext, neighbours) {
  UNWIND vector + time + fulltext + neighbours AS hit
  WITH DISTINCT hit.uid AS uid
  MATCH (m:Message {uid: uid}) USING INDEX m:Message(uid)
  WHERE m.user_id = $user_id
  MATCH (c:Conversation)-[:HAS_MESSAGE]->(m)
  RETURN collect(m {.uid, .role, .content, .speaker, .seq, created_at: toString(m.created_at), session_id: c.session_id,
                    similarity: vector.similarity.cosine(m.embedding, $embedding)}) AS messages
}
CALL () {
  WITH $sections.long_term AS wanted WHERE wanted
  MATCH (f:Fact {user_id: $user_id})
  WHERE (($as_of IS NULL AND f.status = 'current') OR ($as_of IS NOT NULL AND """ + held_at("f") + """))
    AND """ + kept(label="Fact", node="f") + """
  WITH f, CASE WHEN f.embedding IS NULL THEN 0.0 ELSE vector.similarity.cosine(f.embedding, $embedding) END AS score
  ORDER BY score DESC LIMIT $facts_limit
  OPTIONAL MATCH (f)-[:EXTRACTED_FROM]->(source:Message)
  WITH f, score, collect(source.uid)[0] AS message_uid ORDER BY score DESC
  RETURN collect(f {.uid, .subject, .predicate, .object, .valid_from, .valid_until, .recorded_at, similarity: score,
                    message_uid: message_uid}) AS facts
}
CALL () {
  WITH $sections.long_term AS wanted WHERE wanted
  MATCH (p:Preference {user_id: $user_id})
  WHERE (($as_of IS NULL AND p.status = 'current') OR ($as_of IS NOT NULL AND """ + held_at("p") + """))
    AND """ + kept(label="Preference", node="p") + """
  WITH p, CASE WHEN p.embedding IS NULL THEN 0.0 ELSE vector.similarity.cosine(p.embedding, $embedding) END AS score
  ORDER BY score DESC LIMIT $preferences_limit
  OPTIONAL MATCH (p)-[:EXTRACTED_FROM]->(source:Message)
  WITH p, score, collect(source.uid)[0] AS message_uid ORDER BY score DESC
  RETURN collect(p {.uid, .category, .preference, .valid_from, similarity: score, message_uid: message_uid}) AS preferences
}
CALL () {
  WITH $sections.long_term AS wanted WHERE wanted
  CALL () {
    WITH $entity_lucene AS lucene WHERE lucene IS NOT NULL
    CALL db.index.fulltext.queryNodes('entity_names', lucene, {limit: $entities_limit}) YIELD node, score
    WHERE node.user_id = $user_id AND """ + kept(label="Entity", node="node") + """
    RETURN node AS e
    UNION
    MATCH (e:Entity {user_id: $user_id}) WHERE e.embedding IS NOT NULL AND """ + kept(label="Entity", node="e") + """
    WITH e, vector.similarity.cosine(e.embedding, $embedding) AS score
    ORDER BY score DESC LIMIT $entities_limit
    RETURN e
  }
  WITH e, CASE WHEN e.embedding IS NULL THEN 0.0 ELSE vector.similarity.cosine(e.embedding, $embedding) END AS score
  WHERE NOT EXISTS { MATCH (e)-[:SAME_AS {status: 'auto'}]->(:Entity) }
    AND NOT EXISTS { MATCH (e)-[:SAME_AS {status: 'confirmed'}]->(:Entity) }
  ORDER BY score DESC LIMIT $entities_limit
  CALL (e) {  // expanded from the entity: no label on n the planner could seek all the person's entities by
    OPTIONAL MATCH (e)-[r:RELATED_TO]-(n)
    WHERE 'Entity' IN labels(n) AND n.user_id = $user_id AND r.valid_until IS NULL AND """ + kept(label="Entity", node="n") + """
    RETURN collect(DISTINCT {type: r.type, name: n.name, outgoing: startNode(r) = e})[..5] AS related
  }
  WITH e, score, related ORDER BY score DESC
  RETURN collect({uid: e.uid, name: e.name, type: e.type, aliases: coalesce(e.aliases, []), similarity: score,
                  related: related}) AS entities
}
CALL () {
  WITH $sections.reasoning AS wanted WHERE wanted
  MATCH (t:ReasoningTrace {user_id: $user_id})
  WHERE t.task_embedding IS NOT NULL AND t.completed_at IS NOT NULL AND """ + kept(label="ReasoningTrace", node="t") + """
  WITH t, vector.similarity.cosine(t.task_embedding, $embedding) AS score
  ORDER BY score DESC LIMIT $traces_limit
  CALL (t) {
    OPTIONAL MATCH (t)-[hs:HAS_STEP]->(s:ReasoningStep)
    WITH s ORDER BY hs.order
    RETURN collect(coalesce(s.action, s.thought))[..5] AS steps
  }
  RETURN collect(t {.uid, .task, .outcome, .success, similarity: score, steps: steps}) AS traces
}
RETURN next_seq, recent, vector, time, fulltext, neighbours, messages, facts, preferences, entities, traces
"""

# Recall's vector branches, scanning the person's messages exactly: all of them, and those said in
# the span a question names (through the (user_id, created_at) index).
_VECTOR_BRANCH_EXACT = """
  MATCH (m:Message {user_id: $user_id})
  WHERE m.embedding IS NOT NULL AND NOT m.uid IN exclude AND """ + kept(label="Message", node="m") + """
  WITH m, vector.similarity.cosine(m.embedding, $embedding) AS score
  ORDER BY score DESC LIMIT $depth"""
_TIME_BRANCH_EXACT = """
  MATCH (m:Message) USING INDEX m:Message(user_id, created_at)
  WHERE m.user_id = $user_id AND m.created_at >= $after AND m.created_at < $before AND m.embedding IS NOT NULL
    AND NOT m.uid IN exclude AND """ + kept(label="Message", node="m") + """
  WITH m, vector.similarity.cosine(m.embedding, $embedding) AS score
  ORDER BY score DESC LIMIT $depth"""
CONTEXT_READ = _CONTEXT_READ.replace("@SCAN@", "true").replace(
    "@VECTOR_BRANCH@", _VECTOR_BRANCH_EXACT.strip()).replace("@TIME_BRANCH@", _TIME_BRANCH_EXACT.strip())

# The same branches through the in-index filtered search of Neo4j 2026.01+
# for a person holding more than $exact_scan_max messages (settings.RECALL_EXACT_SCAN_MAX), counted up
# to one more than that, and only when recall is asked for; a person with fewer is scanned exactly, as on 5.26:
# VECTOR_SEARCH_OVERFETCH candidates per message wanted, plus as many as the recent turns it may drop
# (the index's LIMIT takes parameters only), re-ranked by exact cosine.
_VECTOR_BRANCH_SEARCH = """
  MATCH (m:Message)
    SEARCH m IN (VECTOR INDEX message_embedding_filtered FOR $embedding
      WHERE m.user_id = $user_id
      LIMIT $depth * """ + str(VECTOR_SEARCH_OVERFETCH) + """ + $history_limit)
  WITH m WHERE NOT m.uid IN exclude AND """ + kept(label="Message", node="m") + """
  WITH m, vector.similarity.cosine(m.embedding, $embedding) AS score
  ORDER BY score DESC LIMIT $depth"""
_TIME_BRANCH_SEARCH = """
  MATCH (m:Message)
    SEARCH m IN (VECTOR INDEX message_embedding_filtered FOR $embedding
      WHERE m.user_id = $user_id AND m.created_at >= $after AND m.created_at < $before
      LIMIT $depth * """ + str(VECTOR_SEARCH_OVERFETCH) + """ + $history_limit)
  WITH m WHERE NOT m.uid IN exclude AND """ + kept(label="Message", node="m") + """
  WITH m, vector.similarity.cosine(m.embedding, $embedding) AS score
  ORDER BY score DESC LIMIT $depth"""


def _scanned_or_searched(*, exact: str, search: str) -> str:
    """Return a branch that scans exactly where `scan` holds (a person with few messages), else searches the index."""
    return (f"CALL (exclude, scan) {{\n  WITH exclude WHERE scan\n  {exact.strip()}\n"
            f"  RETURN m, score\n  UNION ALL\n  WITH exclude WHERE NOT scan\n  {search.strip()}\n"
            f"  RETURN m, score\n  }}\n  WITH m, score")


CONTEXT_READ_SEARCH = "CYPHER 25\n" + _CONTEXT_READ.replace(
    "@SCAN@", "CASE WHEN $sections.recall THEN size(COLLECT { MATCH (n:Message {user_id: $user_id}) RETURN 1 "
              "LIMIT $exact_scan_max + 1 }) <= $exact_scan_max ELSE true END").replace(
    "@VECTOR_BRANCH@", _scanned_or_searched(exact=_VECTOR_BRANCH_EXACT, search=_VECTOR_BRANCH_SEARCH)).replace(
    "@TIME_BRANCH@", _scanned_or_searched(exact=_TIME_BRANCH_EXACT, search=_TIME_BRANCH_SEARCH))

# --- extraction, resolution, supersession ------------------------------------------------------

MESSAGE_FOR_EXTRACTION = """
MATCH (c:Conversation)-[:HAS_MESSAGE]->(m:Message {uid: $uid, user_id: $user_id})
OPTIONAL MATCH (c)-[:HAS_MESSAGE]->(earlier:Message)
WHERE earlier.seq < m.seq AND earlier.seq >= m.seq - 4
WITH m, earlier ORDER BY earlier.seq
RETURN m.content AS content, m.role AS role, m.agent_id AS agent_id, m.extraction_status AS status,
       m.explicit AS explicit, m.created_at AS created_at, m.seq AS seq, m.stored_at AS stored_at,
       m.embedding IS NULL AS unembedded, collect(earlier {.role, .content}) AS earlier
"""

# A message is appended without its vector; the extraction worker sets it first (recall by meaning
# finds the message from then on), whether or not it may extract long-term memory from it.
MESSAGE_EMBEDDING_SET = """
MATCH (m:Message {uid: $uid, user_id: $user_id}) WHERE m.embedding IS NULL
SET m.embedding = $embedding
"""

MESSAGE_EXTRACTION_STATUS = """
MATCH (m:Message {uid: $uid, user_id: $user_id})
SET m.extraction_status = $status, m.extraction_error = $error
"""

# Re-extraction marks the messages of some statuses (one person's, or everyone's) pending again, in the
# write that finds them: pending is their place in the extraction outbox. Ids only, never content.
MESSAGES_REEXTRACT = """
MATCH (m:Message)
WHERE ($user_id IS NULL OR m.user_id = $user_id) AND m.extraction_status IN $statuses
SET m.extraction_status = 'pending', m.extraction_error = null
RETURN m.uid AS uid, m.user_id AS user_id
"""

# The extraction outbox: a message is stored `pending` in the write that appends it, so these find
# every accepted message not yet extracted (through the extraction_status index), whoever it is about.
# They return ids and times only, never content.
EXTRACTIONS_WAITING = """
MATCH (m:Message)
WHERE m.extraction_status = 'pending' AND coalesce(m.stored_at, m.created_at) < $before
WITH m, coalesce(m.stored_at, m.created_at) AS since
ORDER BY since
LIMIT $limit
RETURN m.uid AS uid, m.user_id AS user_id, since
"""

EXTRACTIONS_COUNT = """
MATCH (m:Message)
WHERE m.extraction_status = 'pending'
WITH coalesce(m.stored_at, m.created_at) AS since
RETURN count(*) AS waiting, count(CASE WHEN since < $stuck_before THEN 1 END) AS stuck, min(since) AS oldest
"""

# Taken first in every extraction write of a person: the User node's write lock, held until commit,
# serialises them, so resolution and supersession always see what was committed before.
PERSON_WRITE_LOCK = """
MERGE (u:User {user_id: $user_id})
  ON CREATE SET u.uid = randomUUID(), u.created_at = datetime()
SET u._lock = true REMOVE u._lock
"""

# Every write of an extraction starts from its message, so a message deleted meanwhile gets nothing.
# The uid is derived from person, type and normal name, so two writers always meet in one node (the
# uid is unique); name, embedding and created_at come from the earliest statement, whichever
# message was extracted first, and aliases are the sorted union of every statement's. A corrected
# entity keeps what the correction set: extraction of the name it corrected does not bring it back.
ENTITIES_MERGE = """
MATCH (m:Message {uid: $message_uid, user_id: $user_id})
UNWIND $entities AS row
MERGE (e:Entity {uid: row.uid})
  ON CREATE SET e.user_id = $user_id, e.type = row.type, e.key = row.key, e.aliases = [], e.id = row.uid
WITH m, e, row, e.first_key IS NULL OR $statement_key < e.first_key AS earliest, e.correction_id IS NULL AS open
SET e.name = CASE WHEN earliest AND open THEN row.name ELSE e.name END,
    e.embedding = CASE WHEN earliest AND open THEN row.embedding ELSE e.embedding END,
    e.created_at = CASE WHEN earliest THEN $created_at ELSE e.created_at END,
    e.first_key = CASE WHEN earliest THEN $statement_key ELSE e.first_key END,
    e.aliases = CASE WHEN open
      THEN COLLECT { UNWIND coalesce(e.aliases, []) + row.aliases AS alias RETURN DISTINCT alias ORDER BY alias }
      ELSE e.aliases END
MERGE (m)-[r:MENTIONS]->(e)
  ON CREATE SET r.confidence = row.confidence, r.start = row.start, r.end = row.end
RETURN count(*) AS written
"""

# A relation's confidence, valid_from and source message are those of its earliest statement.
RELATIONS_MERGE = """
MATCH (:Message {uid: $message_uid, user_id: $user_id})
UNWIND $relations AS row
MATCH (a:Entity {uid: row.source, user_id: $user_id}), (b:Entity {uid: row.target, user_id: $user_id})
MERGE (a)-[r:RELATED_TO {type: row.type}]->(b)
WITH r, row, r.first_key IS NULL OR row.statement_key < r.first_key AS earliest
SET r.confidence = CASE WHEN earliest THEN row.confidence ELSE r.confidence END,
    r.valid_from = CASE WHEN earliest THEN row.valid_from ELSE r.valid_from END,
    r.message_uid = CASE WHEN earliest THEN $message_uid ELSE r.message_uid END,
    r.first_key = CASE WHEN earliest THEN row.statement_key ELSE r.first_key END
RETURN count(*) AS written
"""

# One node per subject, predicate and object; each message stating it is one EXTRACTED_FROM with the
# statement's order key and valid time. Its text and embedding are the earliest statement's; its
# status and validity are settled afterwards (TIMELINE_SETTLE), a retracted fact stays retracted.
FACTS_MERGE = """
MATCH (m:Message {uid: $message_uid, user_id: $user_id})
UNWIND $facts AS row
MERGE (f:Fact {uid: row.uid})
  ON CREATE SET f.user_id = $user_id, f.predicate = row.predicate, f.status = 'current', f.id = row.uid
WITH m, f, row, f.first_key IS NULL OR row.statement_key < f.first_key AS earliest
SET f.subject = CASE WHEN earliest THEN row.subject ELSE f.subject END,
    f.object = CASE WHEN earliest THEN row.object ELSE f.object END,
    f.embedding = CASE WHEN earliest THEN row.embedding ELSE f.embedding END,
    f.confidence = CASE WHEN earliest THEN row.confidence ELSE f.confidence END,
    f.cardinality = row.cardinality,
    f.first_key = CASE WHEN earliest THEN row.statement_key ELSE f.first_key END
MERGE (f)-[e:EXTRACTED_FROM]->(m)
WITH f, e, row, e.key IS NULL OR row.statement_key < e.key AS first_here
SET e.key = CASE WHEN first_here THEN row.statement_key ELSE e.key END,
    e.valid_from = CASE WHEN first_here THEN row.valid_from ELSE e.valid_from END
WITH f, row
CALL (f, row) {
  UNWIND row.about AS entity_uid
  MATCH (x:Entity {uid: entity_uid, user_id: $user_id})
  MERGE (f)-[:ABOUT]->(x)
  RETURN count(*) AS linked
}
RETURN count(*) AS written
"""

# Every statement of the facts that share a subject and predicate, for settling which is current.
FACT_STATEMENTS = """
MATCH (f:Fact {user_id: $user_id, predicate: $predicate})
WHERE toLower(f.subject) = $subject_key AND f.status IN ['current', 'superseded']
MATCH (f)-[e:EXTRACTED_FROM]->(m:Message)
WHERE e.key IS NOT NULL
RETURN f.uid AS uid, f.stated_until AS stated_until, f.recorded_at AS corrected_at,
       collect({key: e.key, valid_from: e.valid_from, stored_at: coalesce(m.stored_at, m.created_at)}) AS statements
"""

# One node per topic key and polarity (the topic in any words), with a statement per message as for facts;
# HAS_PREFERENCE once. The words it is shown in are the earliest statement's.
PREFERENCES_MERGE = """
MATCH (m:Message {uid: $message_uid, user_id: $user_id})
MATCH (u:User {user_id: $user_id})
UNWIND $preferences AS row
MERGE (p:Preference {uid: row.uid})
  ON CREATE SET p.user_id = $user_id, p.topic_key = row.topic_key, p.polarity = row.polarity, p.status = 'current',
                p.id = row.uid
WITH m, u, p, row, p.first_key IS NULL OR row.statement_key < p.first_key AS earliest
SET p.topic = CASE WHEN earliest THEN row.topic ELSE p.topic END,
    p.category = CASE WHEN earliest THEN row.category ELSE p.category END,
    p.preference = CASE WHEN earliest THEN row.preference ELSE p.preference END,
    p.embedding = CASE WHEN earliest THEN row.embedding ELSE p.embedding END,
    p.confidence = CASE WHEN earliest THEN row.confidence ELSE p.confidence END,
    p.first_key = CASE WHEN earliest THEN row.statement_key ELSE p.first_key END
MERGE (p)-[e:EXTRACTED_FROM]->(m)
SET e.key = row.statement_key, e.valid_from = row.valid_from
MERGE (u)-[:HAS_PREFERENCE]->(p)
RETURN count(*) AS written
"""

# A preference written before topic keys has its topic only.
PREFERENCE_STATEMENTS = """
CALL () {
  MATCH (p:Preference {user_id: $user_id, topic_key: $topic_key}) RETURN p
  UNION
  MATCH (p:Preference {user_id: $user_id, topic: $topic}) WHERE p.topic_key IS NULL RETURN p
}
WITH p WHERE p.status IN ['current', 'superseded']
MATCH (p)-[e:EXTRACTED_FROM]->(m:Message)
WHERE e.key IS NOT NULL
RETURN p.uid AS uid,
       collect({key: e.key, valid_from: e.valid_from, stored_at: coalesce(m.stored_at, m.created_at)}) AS statements
"""

# What a message states facts or preferences about, so that forgetting it can settle them again.
MESSAGE_STATEMENT_GROUPS = """
MATCH (n)-[:EXTRACTED_FROM]->(:Message {uid: $uid, user_id: $user_id})
WHERE (n:Fact OR n:Preference) AND n.first_key IS NOT NULL
RETURN DISTINCT CASE WHEN n:Fact THEN 'Fact' ELSE 'Preference' END AS label,
       CASE WHEN n:Fact THEN toLower(n.subject) ELSE n.topic END AS key, n.predicate AS predicate,
       n:Preference OR n.cardinality = 'single' AS exclusive
"""

# Writes what ingest.timeline_settle worked out for one group; SUPERSEDED_BY edges inside the group
# follow it, while an edge to a retracted node (a reviewer's revert) is kept as the record.
_TIMELINE_SETTLE = """
UNWIND $rows AS row
MATCH (n:{label} {{uid: row.uid, user_id: $user_id}})
SET n.status = row.status, n.valid_from = row.valid_from, n.valid_until = row.valid_until,
    n.recorded_at = row.recorded_at, n.expired_at = row.expired_at
WITH n, row
CALL (n, row) {{
  MATCH (n)-[old:SUPERSEDED_BY]->(other:{label})
  WHERE other.status <> 'retracted' AND (row.superseded_by IS NULL OR other.uid <> row.superseded_by)
  DELETE old
  RETURN count(*) AS dropped
}}
CALL (n, row) {{
  WITH n, row WHERE row.superseded_by IS NOT NULL
  MATCH (new:{label} {{uid: row.superseded_by, user_id: $user_id}})
  MERGE (n)-[:SUPERSEDED_BY]->(new)
  RETURN count(*) AS linked
}}
RETURN count(*) AS settled
"""
TIMELINE_SETTLE = {label: _TIMELINE_SETTLE.format(label=label) for label in ("Fact", "Preference")}

# Pairs of one of the message's entities with another of the person's of the same type, with the
# names and the aliases each has of its own (not those a merge added), and their cosine in [-1, 1].
ENTITY_PAIRS = """
MATCH (mine:Entity {user_id: $user_id}) WHERE mine.uid IN $uids
MATCH (other:Entity {user_id: $user_id, type: mine.type}) WHERE other.uid <> mine.uid
WITH mine, other LIMIT $limit
WITH mine, other,
     CASE WHEN mine.embedding IS NULL OR other.embedding IS NULL THEN 0.0
          ELSE 2 * vector.similarity.cosine(mine.embedding, other.embedding) - 1 END AS similarity
RETURN mine {.uid, .name, .type, .first_key, aliases: [a IN coalesce(mine.aliases, []) WHERE NOT a IN
              reduce(acc = [], x IN [(:Entity)-[s:SAME_AS]->(mine) | coalesce(s.added_aliases, [])] | acc + x)]} AS mine,
       other {.uid, .name, .type, .first_key, aliases: [a IN coalesce(other.aliases, []) WHERE NOT a IN
              reduce(acc = [], x IN [(:Entity)-[s:SAME_AS]->(other) | coalesce(s.added_aliases, [])] | acc + x)]} AS other,
       similarity
"""

# A message's text and the span where it mentions an entity: the evidence a reviewer reads.
MENTION_SAMPLES = """
UNWIND $wanted AS wanted
MATCH (m:Message {uid: wanted.message_uid, user_id: $user_id})-[r:MENTIONS]->(e:Entity {uid: wanted.entity_uid})
RETURN e.uid AS entity_uid, m.uid AS message_uid, e.name AS name, m.content AS content, r.start AS start, r.end AS end
"""

# Proposes (pending) or applies (auto) a merge of `from` into `into`. A pair keeps the strongest
# evidence it was ever scored with (ties: the earliest message), so the result does not depend on
# the order messages were extracted in; a decided pair (confirmed, rejected, undone) is left alone.
# An auto merge adds the names of `from` as aliases of `into` and remembers which, for an undo.
SAME_AS_UPSERT = """
UNWIND $links AS link
MATCH (a:Entity {uid: link.from_uid, user_id: $user_id}), (b:Entity {uid: link.into_uid, user_id: $user_id})
WHERE NOT EXISTS { MATCH (b)-[:SAME_AS]->(a) }
MERGE (a)-[s:SAME_AS]->(b)
  ON CREATE SET s.status = 'pending', s.created_at = datetime(), s.added_aliases = []
WITH a, b, link, s
WHERE s.status IN ['pending', 'auto']
  AND (s.confidence IS NULL OR link.confidence > s.confidence
       OR (link.confidence = s.confidence AND link.evidence_key < coalesce(s.evidence_key, '')))
WITH a, b, link, s, s.status = 'pending' AND link.status = 'auto' AS merging
SET s.confidence = link.confidence, s.scores = link.scores, s.evidence = link.evidence,
    s.evidence_key = link.evidence_key, s.status = CASE WHEN merging THEN 'auto' ELSE s.status END,
    s.added_aliases = CASE WHEN merging
      THEN [x IN [a.name] + link.from_aliases WHERE NOT x IN coalesce(b.aliases, []) AND x <> b.name]
      ELSE s.added_aliases END
SET b.aliases = CASE WHEN merging
  THEN COLLECT { UNWIND coalesce(b.aliases, []) + s.added_aliases AS alias RETURN DISTINCT alias ORDER BY alias }
  ELSE b.aliases END
RETURN count(*) AS linked
"""

# Every entity with what a duplicate search needs, and the uids it is already linked to by SAME_AS.
ENTITIES_FOR_DEDUPE = """
MATCH (e:Entity)
WHERE $user_id IS NULL OR e.user_id = $user_id
RETURN e.user_id AS user_id, e.uid AS uid, e.type AS type, e.name AS name, e.aliases AS aliases,
       coalesce(e.first_key, toString(e.created_at)) AS since,
       [(e)-[:SAME_AS]-(other:Entity) | other.uid] AS linked
"""

PREFERENCES_FOR_DEDUPE = """
MATCH (p:Preference {status: 'current'})
WHERE $user_id IS NULL OR p.user_id = $user_id
RETURN p.user_id AS user_id, p.uid AS uid, p.preference AS preference, p.topic AS topic, p.polarity AS polarity,
       coalesce(p.first_key, toString(p.valid_from)) AS since
"""

# A duplicate preference is superseded by its canonical one, marked so that it can be restored.
PREFERENCE_DUPLICATES_MERGE = """
MATCH (c:Preference {uid: $into_uid, user_id: $user_id})
UNWIND $uids AS uid
MATCH (d:Preference {uid: uid, user_id: $user_id, status: 'current'})
SET d.status = 'superseded'
MERGE (d)-[r:SUPERSEDED_BY]->(c)
SET r.reason = 'duplicate', r.merged_at = datetime()
RETURN count(d) AS merged
"""

PREFERENCE_DUPLICATES_RESTORE = """
MATCH (d:Preference {status: 'superseded'})-[r:SUPERSEDED_BY {reason: 'duplicate'}]->(:Preference)
WHERE $user_id IS NULL OR d.user_id = $user_id
SET d.status = 'current'
DELETE r
RETURN count(d) AS restored
"""

# --- corrections ------------------------------------------------------------------------------

# A node's statements with their messages, to carry them over to the version that corrects it.
_STATEMENTS_OF = """
MATCH (n:{label} {{uid: $uid, user_id: $user_id}})-[e:EXTRACTED_FROM]->(m:Message {{user_id: $user_id}})
WHERE e.key IS NOT NULL
RETURN m.uid AS message_uid, e.key AS key, e.valid_from AS valid_from
"""
STATEMENTS_OF = {label: _STATEMENTS_OF.format(label=label) for label in ("Fact", "Preference")}

# The corrected version is a new node that takes over the wrong one's statements; the wrong one is
# retracted (never current, never held) and kept, with a SUPERSEDED_BY {reason: 'correction'} to the
# version, as the history. Its other supersession edges go: the group is settled again without it.
_VERSION_CREATE = """
MATCH (old:{label} {{uid: $uid, user_id: $user_id}})
WHERE old.status IN ['current', 'superseded']
OPTIONAL MATCH (old)-[stale:SUPERSEDED_BY]-(other:{label})
WHERE stale.reason IS NULL AND other.status <> 'retracted'
DELETE stale
WITH DISTINCT old
CREATE (v:{label} {{uid: $version_uid, user_id: $user_id, id: $version_uid}})
SET v += $props, v.status = 'current', v.recorded_at = datetime(), v.first_key = old.first_key, v.corrects = old.uid,
    v.cardinality = old.cardinality,
    v.correction_id = $correction_id, v.corrected_by = $corrected_by
SET old.status = 'retracted'
CREATE (old)-[:SUPERSEDED_BY {{reason: 'correction', correction_id: $correction_id, corrected_at: datetime(),
                              corrected_by: $corrected_by}}]->(v)
WITH old, v
CALL (old, v) {{
  MATCH (old)-[:ABOUT]->(x:Entity {{user_id: $user_id}})
  MERGE (v)-[:ABOUT]->(x)
  RETURN count(*) AS about
}}
CALL (old, v) {{
  MATCH (u:User {{user_id: $user_id}})-[:HAS_PREFERENCE]->(old)
  MERGE (u)-[:HAS_PREFERENCE]->(v)
  RETURN count(*) AS owned
}}
CALL (v) {{
  UNWIND $statements AS s
  MATCH (m:Message {{uid: s.message_uid, user_id: $user_id}})
  MERGE (v)-[e:EXTRACTED_FROM]->(m)
  SET e.key = s.key, e.valid_from = s.valid_from, e.correction_id = $correction_id
  RETURN count(*) AS carried
}}
RETURN v.uid AS uid
"""
VERSION_CREATE = {label: _VERSION_CREATE.format(label=label) for label in ("Fact", "Preference")}

# Undoing a correction deletes its version (only while nothing corrected it again) and lets the
# version it corrected take part in its group again; the group is settled afterwards.
_VERSION_UNDO = """
MATCH (old:{label} {{uid: $uid, user_id: $user_id}})-[:SUPERSEDED_BY {{correction_id: $correction_id}}]->
      (v:{label} {{uid: $version_uid, user_id: $user_id}})
WHERE v.status <> 'retracted'
SET old.status = 'current', old.valid_until = null
DETACH DELETE v
RETURN old.uid AS uid
"""
VERSION_UNDO = {label: _VERSION_UNDO.format(label=label) for label in ("Fact", "Preference")}

# For extraction: the newest version of each corrected node (following corrections of corrections),
# so a statement of the wrong value counts as a statement of the corrected one, whenever it is extracted.
_CORRECTION_HEADS = """
UNWIND $uids AS wrong
MATCH (n:{label} {{uid: wrong, user_id: $user_id, status: 'retracted'}})
MATCH (n)-[chain:SUPERSEDED_BY*1..20]->(v:{label} {{user_id: $user_id}})
WHERE all(r IN chain WHERE r.reason = 'correction') AND v.status <> 'retracted'
RETURN wrong, v.uid AS version_uid, v.stated_from AS stated_from, v.topic AS topic
"""
CORRECTION_HEADS = {label: _CORRECTION_HEADS.format(label=label) for label in ("Fact", "Preference")}

# A statement of the wrong value, written to the version that corrects it (its earliest key wins).
_CORRECTED_STATEMENTS_MERGE = """
MATCH (m:Message {{uid: $message_uid, user_id: $user_id}})
UNWIND $rows AS row
MATCH (v:{label} {{uid: row.version_uid, user_id: $user_id}})
MERGE (v)-[e:EXTRACTED_FROM]->(m)
WITH v, e, row, e.key IS NULL OR row.statement_key < e.key AS first_here
SET e.key = CASE WHEN first_here THEN row.statement_key ELSE e.key END,
    e.valid_from = CASE WHEN first_here THEN row.valid_from ELSE e.valid_from END,
    e.correction_id = v.correction_id
RETURN count(*) AS written
"""
CORRECTED_STATEMENTS_MERGE = {label: _CORRECTED_STATEMENTS_MERGE.format(label=label)
                              for label in ("Fact", "Preference")}

# The groups corrected nodes are settled in (as MESSAGE_STATEMENT_GROUPS names them).
NODE_STATEMENT_GROUPS = """
MATCH (n:Fact|Preference {user_id: $user_id}) WHERE n.uid IN $uids
RETURN DISTINCT CASE WHEN n:Fact THEN 'Fact' ELSE 'Preference' END AS label,
       CASE WHEN n:Fact THEN toLower(n.subject) ELSE n.topic END AS key, n.predicate AS predicate,
       n:Preference OR n.cardinality = 'single' AS exclusive
"""

# An entity is corrected in place (its uid is what every statement of its name finds); `correction_id`
# pins name, type and aliases against extraction (ENTITIES_MERGE). Undo passes the values before it.
ENTITY_CORRECT = """
MATCH (e:Entity {uid: $uid, user_id: $user_id})
SET e.name = $name, e.type = $type, e.aliases = $aliases, e.embedding = $embedding,
    e.correction_id = $correction_id, e.corrected_by = $corrected_by
RETURN e.uid AS uid
"""


# What a page shows of items named by uid (what a context gave an agent), within retention: the text, and
# the parts a sentence is made of (a message's speaker, a fact's subject, predicate, object and validity).
_ITEM_TEXT = {"Message": "n.content", "Fact": "n.object", "Preference": "n.preference", "Entity": "n.name",
              "ReasoningTrace": "n.task"}
ITEMS_TEXT = {label: f"""
MATCH (n:{label} {{user_id: $user_id}}) WHERE n.uid IN $uids AND {kept(label=label, node='n')}
RETURN n.uid AS uid, {text} AS text,
       n {{.role, .subject, .predicate, .object, .valid_from, .valid_until, .status}} AS parts
""" for label, text in _ITEM_TEXT.items()}
