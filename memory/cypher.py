"""Raw Cypher of the memory app, as named constants with $parameters.

Every query that serves a subject matches on `user_id`. Vector recall is exact: it scores the
subject's own nodes (found through the `user_id` index) with vector.similarity.cosine, so other
tenants can never crowd a user's best matches out of an approximate top-k. Fulltext indexes
include `user_id` as a field, so the Lucene query itself is tenant-filtered too.
"""

SCHEMA = [
    "CREATE FULLTEXT INDEX message_content IF NOT EXISTS FOR (m:Message) ON EACH [m.content, m.user_id]",
    "CREATE FULLTEXT INDEX entity_names IF NOT EXISTS FOR (e:Entity) ON EACH [e.name, e.aliases, e.user_id]",
    "CREATE FULLTEXT INDEX fact_text IF NOT EXISTS FOR (f:Fact) ON EACH [f.subject, f.predicate, f.object, f.user_id]",
    "CREATE INDEX conversation_user_session IF NOT EXISTS FOR (c:Conversation) ON (c.user_id, c.session_id)",
    "CREATE INDEX message_user_client IF NOT EXISTS FOR (m:Message) ON (m.user_id, m.client_id)",
]

# --- writes -----------------------------------------------------------------------------------

CONVERSATION_MERGE = """
MERGE (u:User {user_id: $user_id})
  ON CREATE SET u.uid = randomUUID(), u.created_at = datetime()
MERGE (c:Conversation {user_id: $user_id, session_id: $session_id})
  ON CREATE SET c.uid = randomUUID(), c.agent_id = $agent_id, c.created_at = datetime(), c.last_seq = 0
MERGE (u)-[:HAS_CONVERSATION]->(c)
RETURN c.uid
"""

# Locks the conversation node first (SET), so the tail read after it is the committed one even if
# two writers got past the Redis lock: the chain cannot fork.
MESSAGES_APPEND = """
MATCH (c:Conversation {uid: $conversation_uid, user_id: $user_id})
SET c._lock = coalesce(c._lock, 0) + 1
WITH c
OPTIONAL MATCH (c)-[:HAS_MESSAGE]->(tail:Message)
WHERE NOT (tail)-[:NEXT_MESSAGE]->()
WITH c, tail
UNWIND range(0, size($messages) - 1) AS i
WITH c, tail, i, $messages[i] AS row
CREATE (m:Message {
  uid: randomUUID(), user_id: $user_id, role: row.role, content: row.content, embedding: row.embedding,
  seq: c.last_seq + i + 1, client_id: row.client_id, content_hash: row.content_hash, agent_id: $agent_id,
  created_at: datetime() + duration({microseconds: i}), extraction_status: 'pending', explicit: row.explicit
})
CREATE (c)-[:HAS_MESSAGE]->(m)
WITH c, tail, collect(m) AS created
SET c.last_seq = c.last_seq + size(created)
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

# Messages already stored for the conversation that a new batch might repeat.
MESSAGES_SEEN = """
MATCH (c:Conversation {user_id: $user_id, session_id: $session_id})-[:HAS_MESSAGE]->(m:Message)
WHERE m.client_id IN $client_ids OR (m.seq > c.last_seq - $window AND m.content_hash IN $hashes)
RETURN m.uid, m.seq, m.client_id, m.content_hash
"""

# Forgetting a message: the four steps below run in one transaction. The chain stays linked
# around the gap; facts and preferences extracted from it alone go, and so do entities that
# nothing else mentions or is about.
MESSAGE_UNLINK = """
MATCH (m:Message {uid: $uid, user_id: $user_id})
OPTIONAL MATCH (prev:Message)-[:NEXT_MESSAGE]->(m)
OPTIONAL MATCH (m)-[:NEXT_MESSAGE]->(next:Message)
OPTIONAL MATCH (c:Conversation)-[:FIRST_MESSAGE]->(m)
FOREACH (_ IN CASE WHEN prev IS NOT NULL AND next IS NOT NULL THEN [1] ELSE [] END |
  CREATE (prev)-[:NEXT_MESSAGE]->(next))
FOREACH (_ IN CASE WHEN c IS NOT NULL AND next IS NOT NULL THEN [1] ELSE [] END |
  CREATE (c)-[:FIRST_MESSAGE]->(next))
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

# Any memory node, with the parts that exist only for it (trace steps, tool calls); one query per
# label so that the uid constraint's index is used.
_NODE_DELETE = """
MATCH (n:{label} {{uid: $uid, user_id: $user_id}})
OPTIONAL MATCH (n)-[:HAS_STEP]->(step:ReasoningStep)
OPTIONAL MATCH (step)-[:HAS_TOOL_CALL]->(call:ToolCall)
WITH n, collect(DISTINCT step) + collect(DISTINCT call) AS parts
FOREACH (p IN parts | DETACH DELETE p)
DETACH DELETE n
RETURN 1 + size(parts)
"""
NODE_DELETE = {
    label: _NODE_DELETE.format(label=label)
    for label in ("Message", "Fact", "Preference", "Entity", "ReasoningTrace")
}

TRACE_START = """
MERGE (c:Conversation {user_id: $user_id, session_id: $session_id})
  ON CREATE SET c.uid = randomUUID(), c.agent_id = $agent_id, c.created_at = datetime(), c.last_seq = 0
MERGE (u:User {user_id: $user_id})
  ON CREATE SET u.uid = randomUUID(), u.created_at = datetime()
MERGE (u)-[:HAS_CONVERSATION]->(c)
CREATE (t:ReasoningTrace {
  uid: randomUUID(), user_id: $user_id, session_id: $session_id, agent_id: $agent_id,
  task: $task, task_embedding: $embedding, started_at: datetime()
})
CREATE (c)-[:HAS_TRACE]->(t)
RETURN t.uid
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
  CREATE (s)-[:HAS_TOOL_CALL]->(tc)
  RETURN tc.uid AS call_uid
}
RETURN s.uid, order, collect(call_uid)
"""

TRACE_COMPLETE = """
MATCH (t:ReasoningTrace {uid: $trace_uid, user_id: $user_id})
WHERE t.completed_at IS NULL
SET t.outcome = $outcome, t.success = $success, t.completed_at = datetime()
RETURN t.uid
"""

# --- reads ------------------------------------------------------------------------------------

RECENT_MESSAGES = """
MATCH (c:Conversation {user_id: $user_id, session_id: $session_id})-[:HAS_MESSAGE]->(m:Message)
WHERE m.seq > c.last_seq - $limit
RETURN m.uid, m.role, m.content, m.seq, m.created_at, c.session_id
ORDER BY m.seq
"""

# Exact cosine over the subject's own messages, outside the given session's recent window.
MESSAGES_BY_VECTOR = """
MATCH (m:Message {user_id: $user_id})
WHERE m.embedding IS NOT NULL AND NOT m.uid IN $exclude
WITH m, vector.similarity.cosine(m.embedding, $embedding) AS score
ORDER BY score DESC LIMIT $limit
MATCH (c:Conversation)-[:HAS_MESSAGE]->(m)
RETURN m.uid, m.role, m.content, m.seq, m.created_at, c.session_id, score
"""

MESSAGES_BY_FULLTEXT = """
CALL db.index.fulltext.queryNodes('message_content', $lucene, {limit: $limit}) YIELD node, score
WHERE node.user_id = $user_id AND NOT node.uid IN $exclude
MATCH (c:Conversation)-[:HAS_MESSAGE]->(node)
RETURN node.uid, node.role, node.content, node.seq, node.created_at, c.session_id, score
"""

# Facts valid at $as_of (recorded by then and not yet expired), or current ones when it is null.
FACTS_BY_VECTOR = """
MATCH (f:Fact {user_id: $user_id})
WHERE ($as_of IS NULL AND f.status = 'current')
   OR ($as_of IS NOT NULL AND f.recorded_at <= $as_of AND (f.expired_at IS NULL OR f.expired_at > $as_of)
       AND f.status <> 'retracted')
WITH f, CASE WHEN f.embedding IS NULL THEN 0.0 ELSE vector.similarity.cosine(f.embedding, $embedding) END AS score
ORDER BY score DESC LIMIT $limit
OPTIONAL MATCH (f)-[:EXTRACTED_FROM]->(m:Message)
RETURN f.uid, f.subject, f.predicate, f.object, f.valid_from, f.valid_until, f.recorded_at, score,
       collect(m.uid)[0]
"""

PREFERENCES_BY_VECTOR = """
MATCH (p:Preference {user_id: $user_id})
WHERE ($as_of IS NULL AND p.status = 'current')
   OR ($as_of IS NOT NULL AND p.valid_from <= $as_of AND (p.valid_until IS NULL OR p.valid_until > $as_of)
       AND p.status <> 'retracted')
WITH p, CASE WHEN p.embedding IS NULL THEN 0.0 ELSE vector.similarity.cosine(p.embedding, $embedding) END AS score
ORDER BY score DESC LIMIT $limit
OPTIONAL MATCH (p)-[:EXTRACTED_FROM]->(m:Message)
RETURN p.uid, p.category, p.preference, p.valid_from, score, collect(m.uid)[0]
"""

# Entities found by name (fulltext) or meaning (exact cosine), with their direct neighbourhood.
ENTITIES_RELEVANT = """
CALL () {
  WITH $lucene AS lucene WHERE lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('entity_names', lucene, {limit: $limit}) YIELD node, score
  WHERE node.user_id = $user_id
  RETURN node AS e, 0.5 + 0.5 * score / (score + 1.0) AS score
  UNION
  MATCH (e:Entity {user_id: $user_id}) WHERE e.embedding IS NOT NULL
  WITH e, vector.similarity.cosine(e.embedding, $embedding) AS score
  ORDER BY score DESC LIMIT $limit
  RETURN e, score
}
WITH e, max(score) AS score
WHERE NOT EXISTS { MATCH (e)-[:SAME_AS {status: 'auto'}]->(:Entity) }
  AND NOT EXISTS { MATCH (e)-[:SAME_AS {status: 'confirmed'}]->(:Entity) }
ORDER BY score DESC LIMIT $limit
OPTIONAL MATCH (e)-[r:RELATED_TO]-(n:Entity {user_id: $user_id})
WHERE r.valid_until IS NULL
WITH e, score, collect(DISTINCT {type: r.type, name: n.name, outgoing: startNode(r) = e})[..5] AS related
RETURN e.uid, e.name, e.type, e.aliases, score, related
"""

TRACES_BY_VECTOR = """
MATCH (t:ReasoningTrace {user_id: $user_id})
WHERE t.task_embedding IS NOT NULL AND t.completed_at IS NOT NULL
WITH t, vector.similarity.cosine(t.task_embedding, $embedding) AS score
ORDER BY score DESC LIMIT $limit
OPTIONAL MATCH (t)-[hs:HAS_STEP]->(s:ReasoningStep)
WITH t, score, s ORDER BY hs.order
RETURN t.uid, t.task, t.outcome, t.success, score, collect(coalesce(s.action, s.thought))[..5]
"""

# --- extraction, resolution, supersession ------------------------------------------------------

MESSAGE_FOR_EXTRACTION = """
MATCH (c:Conversation)-[:HAS_MESSAGE]->(m:Message {uid: $uid, user_id: $user_id})
OPTIONAL MATCH (c)-[:HAS_MESSAGE]->(earlier:Message)
WHERE earlier.seq < m.seq AND earlier.seq >= m.seq - 3
WITH m, earlier ORDER BY earlier.seq
RETURN m.content, m.role, m.agent_id, m.extraction_status, m.explicit, m.created_at,
       collect(earlier {.role, .content})
"""

MESSAGE_EXTRACTION_STATUS = """
MATCH (m:Message {uid: $uid, user_id: $user_id})
SET m.extraction_status = $status, m.extraction_error = $error
"""

# The subject's canonical entities: those not merged into another.
ENTITIES_CANONICAL = """
MATCH (e:Entity {user_id: $user_id})
WHERE NOT EXISTS { MATCH (e)-[s:SAME_AS]->() WHERE s.status IN ['auto', 'confirmed'] }
RETURN e.uid, e.name, e.type, e.aliases, e.embedding
ORDER BY e.created_at DESC LIMIT $limit
"""

# A decision already taken on a pair is never proposed again.
SAME_AS_DECIDED = """
MATCH (a:Entity {uid: $a, user_id: $user_id})-[s:SAME_AS]-(b:Entity {uid: $b, user_id: $user_id})
RETURN s.status
"""

# Every write of an extraction starts from its message, so a message deleted meanwhile gets nothing.
ENTITY_MERGE = """
MATCH (m:Message {uid: $message_uid, user_id: $user_id})
MERGE (e:Entity {uid: $uid})
  ON CREATE SET e.user_id = $user_id, e.name = $name, e.type = $type, e.aliases = $aliases,
                e.embedding = $embedding, e.created_at = datetime()
MERGE (m)-[r:MENTIONS]->(e)
  ON CREATE SET r.confidence = $confidence, r.start = $start, r.end = $end
RETURN e.uid
"""

# Proposes (pending) or applies (auto) a merge of `from` into `into`; an auto merge adds the name
# as an alias of `into` and remembers which aliases it added, so an undo can take exactly those back.
SAME_AS_CREATE = """
MATCH (a:Entity {uid: $from_uid, user_id: $user_id}), (b:Entity {uid: $into_uid, user_id: $user_id})
MERGE (a)-[s:SAME_AS]->(b)
  ON CREATE SET s.status = $status, s.confidence = $confidence, s.scores = $scores, s.evidence = $evidence,
                s.created_at = datetime(),
                s.added_aliases = CASE WHEN $status = 'auto'
                  THEN [x IN [a.name] + a.aliases WHERE NOT x IN b.aliases AND x <> b.name] ELSE [] END
WITH b, s
FOREACH (alias IN CASE WHEN s.status = 'auto' THEN s.added_aliases ELSE [] END |
  SET b.aliases = b.aliases + alias)
RETURN s.status
"""

RELATION_MERGE = """
MATCH (:Message {uid: $message_uid, user_id: $user_id})
MATCH (a:Entity {uid: $source, user_id: $user_id}), (b:Entity {uid: $target, user_id: $user_id})
MERGE (a)-[r:RELATED_TO {type: $type}]->(b)
  ON CREATE SET r.confidence = $confidence, r.valid_from = $valid_from, r.message_uid = $message_uid
"""

# An identical current fact only gains provenance; otherwise the fact is created (idempotently).
FACT_MERGE = """
MATCH (m:Message {uid: $message_uid, user_id: $user_id})
OPTIONAL MATCH (same:Fact {user_id: $user_id, predicate: $predicate, status: 'current'})
WHERE toLower(same.subject) = toLower($subject) AND toLower(same.object) = toLower($object)
  AND same.uid <> $uid
WITH m, same LIMIT 1
CALL (same) {
  WITH same WHERE same IS NULL
  MERGE (f:Fact {uid: $uid})
    ON CREATE SET f.user_id = $user_id, f.subject = $subject, f.predicate = $predicate, f.object = $object,
                  f.embedding = $embedding, f.confidence = $confidence, f.valid_from = $valid_from,
                  f.recorded_at = datetime(), f.status = 'current'
  RETURN f
  UNION
  WITH same WHERE same IS NOT NULL
  RETURN same AS f
}
MERGE (f)-[:EXTRACTED_FROM]->(m)
WITH f
CALL (f) {
  UNWIND $about AS entity_uid
  MATCH (e:Entity {uid: entity_uid, user_id: $user_id})
  MERGE (f)-[:ABOUT]->(e)
  RETURN count(*) AS linked
}
RETURN f.uid
"""

# Closes the current facts with the same subject and predicate but another object.
FACT_SUPERSEDE = """
MATCH (new:Fact {uid: $uid, user_id: $user_id, status: 'current'})
MATCH (old:Fact {user_id: $user_id, predicate: new.predicate, status: 'current'})
WHERE old <> new AND toLower(old.subject) = toLower(new.subject) AND toLower(old.object) <> toLower(new.object)
  AND old.recorded_at <= new.recorded_at
SET old.status = 'superseded', old.expired_at = new.recorded_at,
    old.valid_until = coalesce(new.valid_from, new.recorded_at)
MERGE (old)-[:SUPERSEDED_BY]->(new)
RETURN old.uid
"""

PREFERENCES_CURRENT = """
MATCH (p:Preference {user_id: $user_id, category: $category, status: 'current'})
RETURN p.uid, p.preference
"""

PREFERENCE_MERGE = """
MATCH (m:Message {uid: $message_uid, user_id: $user_id})
MERGE (p:Preference {uid: $uid})
  ON CREATE SET p.user_id = $user_id, p.category = $category, p.preference = $preference,
                p.embedding = $embedding, p.confidence = $confidence, p.valid_from = datetime(),
                p.status = 'current'
MERGE (p)-[:EXTRACTED_FROM]->(m)
WITH p
MATCH (u:User {user_id: $user_id})
MERGE (u)-[:HAS_PREFERENCE]->(p)
WITH p
UNWIND $supersedes AS old_uid
MATCH (old:Preference {uid: old_uid, user_id: $user_id, status: 'current'})
SET old.status = 'superseded', old.valid_until = p.valid_from
MERGE (old)-[:SUPERSEDED_BY]->(p)
RETURN count(old)
"""

# --- review decisions -------------------------------------------------------------------------

SAME_AS_APPROVE = """
MATCH (a:Entity {uid: $from_uid, user_id: $user_id})-[s:SAME_AS {status: 'pending'}]->(b:Entity {user_id: $user_id})
WHERE b.uid = $into_uid
SET s.status = 'confirmed', s.decided_by = $actor, s.decided_at = datetime(),
    s.added_aliases = [x IN [a.name] + a.aliases WHERE NOT x IN b.aliases AND x <> b.name]
SET b.aliases = b.aliases + s.added_aliases
RETURN s.status
"""

SAME_AS_REJECT = """
MATCH (a:Entity {uid: $from_uid, user_id: $user_id})-[s:SAME_AS {status: 'pending'}]->(b:Entity {user_id: $user_id})
WHERE b.uid = $into_uid
SET s.status = 'rejected', s.decided_by = $actor, s.decided_at = datetime()
RETURN s.status
"""

# Undoing a merge takes back exactly the aliases it added and keeps the pair from merging again.
SAME_AS_UNDO = """
MATCH (a:Entity {uid: $from_uid, user_id: $user_id})-[s:SAME_AS]->(b:Entity {user_id: $user_id})
WHERE b.uid = $into_uid AND s.status IN ['auto', 'confirmed']
SET b.aliases = [x IN b.aliases WHERE NOT x IN coalesce(s.added_aliases, [])]
SET s.status = 'rejected', s.undone_from = s.status, s.decided_by = $actor, s.decided_at = datetime(),
    s.added_aliases = []
RETURN s.status
"""

# Reverting a supersession makes the older fact current again and retracts the newer; both stay.
FACT_SUPERSESSION_REVERT = """
MATCH (old:Fact {uid: $uid, user_id: $user_id, status: 'superseded'})-[r:SUPERSEDED_BY]->(new:Fact {user_id: $user_id})
SET old.status = 'current', old.valid_until = null, old.expired_at = null
SET new.status = 'retracted', new.expired_at = datetime()
SET r.reverted_at = datetime(), r.reverted_by = $actor
RETURN new.uid
"""
