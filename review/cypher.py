"""Raw Cypher of the review pages, as named constants with $parameters.

Queries that read one subject's memory match on `user_id`; the queue and the trace list may span
subjects (staff see every pending decision) and take `user_id` as an optional filter.
"""

SCHEMA = [
    # The queue reads pending proposals newest first: status then time, so the order comes from the index.
    "CREATE INDEX same_as_status_created IF NOT EXISTS FOR ()-[s:SAME_AS]-() ON (s.status, s.created_at)",
    "CREATE INDEX trace_started IF NOT EXISTS FOR (t:ReasoningTrace) ON (t.started_at)",
]

# --- merge decisions --------------------------------------------------------------------------

# A decision's audit row: statuses, scores and how many aliases moved, never names.
MERGE_STATE = """
MATCH (a:Entity {uid: $from_uid, user_id: $user_id})-[s:SAME_AS]->(b:Entity {uid: $into_uid, user_id: $user_id})
RETURN {status: s.status, confidence: s.confidence, aliases_added: size(coalesce(s.added_aliases, []))} AS state
"""

# Approving makes the merged entity's names aliases of the other, remembering which, for an undo.
MERGE_APPROVE = """
MATCH (a:Entity {uid: $from_uid, user_id: $user_id})-[s:SAME_AS {status: 'pending'}]->(b:Entity {user_id: $user_id})
WHERE b.uid = $into_uid
SET s.status = 'confirmed', s.decided_by = $actor, s.decided_at = datetime(),
    s.added_aliases = [x IN [a.name] + a.aliases WHERE NOT x IN b.aliases AND x <> b.name]
SET b.aliases = b.aliases + s.added_aliases
RETURN s.status AS status
"""

# A rejected pair stays as a SAME_AS {status: 'rejected'}, so resolution never proposes it again.
MERGE_REJECT = """
MATCH (a:Entity {uid: $from_uid, user_id: $user_id})-[s:SAME_AS {status: 'pending'}]->(b:Entity {user_id: $user_id})
WHERE b.uid = $into_uid
SET s.status = 'rejected', s.decided_by = $actor, s.decided_at = datetime()
RETURN s.status AS status
"""

# The two names of a decided merge, for the page that asks whether to undo it.
MERGE_NAMES = """
MATCH (a:Entity {uid: $from_uid, user_id: $user_id})-[s:SAME_AS]->(b:Entity {uid: $into_uid, user_id: $user_id})
RETURN a.name AS from_name, b.name AS into_name
"""

# Undoing a merge takes back exactly the aliases it added and keeps the pair from merging again.
MERGE_UNDO = """
MATCH (a:Entity {uid: $from_uid, user_id: $user_id})-[s:SAME_AS]->(b:Entity {user_id: $user_id})
WHERE b.uid = $into_uid AND s.status IN ['auto', 'confirmed']
SET b.aliases = [x IN b.aliases WHERE NOT x IN coalesce(s.added_aliases, [])]
SET s.status = 'rejected', s.undone_from = s.status, s.decided_by = $actor, s.decided_at = datetime(),
    s.added_aliases = []
RETURN s.status AS status
"""

_MERGE_FILTERS = """
  AND a.user_id = b.user_id
  AND ($type IS NULL OR a.type = $type)
  AND ($min_score IS NULL OR s.confidence >= $min_score) AND ($max_score IS NULL OR s.confidence < $max_score)
  AND ($older_than IS NULL OR s.created_at < $older_than) AND ($newer_than IS NULL OR s.created_at >= $newer_than)
"""

# A merge as the pages show it: the person's id, and the two entities with the SAME_AS between them, whole. A pair
# another library wrote between unowned entities is counted but not listed, so it is returned without them.
_MERGE_COLUMNS = """
a.user_id AS user_id, CASE WHEN a.user_id IS NOT NULL THEN a END AS from,
CASE WHEN a.user_id IS NOT NULL THEN s END AS same_as, CASE WHEN a.user_id IS NOT NULL THEN b END AS into
"""
_MERGE_ROW = "RETURN " + _MERGE_COLUMNS

# The latest messages that mention each entity of a page of merges (by person and uid), with where: what
# a reviewer reads to tell whether two names are one.
ENTITY_MENTIONS = """
UNWIND $entities AS wanted
MATCH (e:Entity {uid: wanted.uid, user_id: wanted.user_id})
CALL (e) {
  MATCH (m:Message {user_id: e.user_id})-[r:MENTIONS]->(e)
  WITH m, r ORDER BY m.created_at DESC LIMIT $per_entity
  RETURN collect({text: m.content, start: r.start, end: r.end}) AS mentions
}
RETURN e.user_id AS user_id, e.uid AS uid, mentions
"""

# Across subjects, in one round trip: the count reads only the (status, created_at) index unless a type
# or score filter needs the nodes, and age bounds are an index range. SAME_AS only ever joins two
# entities of one subject (memory.cypher.SAME_AS_UPSERT), so no user_id comparison is needed here.
# Ordering by both indexed properties, both descending, lets the planner seek 'pending' and stop after
# one page; ordering by created_at alone sorts every pending proposal.
_PENDING_WHERE = """
WHERE s.status = 'pending' AND $newer_than <= s.created_at < $older_than
  AND ($type IS NULL OR a.type = $type)
  AND ($min_score IS NULL OR s.confidence >= $min_score) AND ($max_score IS NULL OR s.confidence < $max_score)
"""

MERGES_PENDING = """
CALL () {
  MATCH (a)-[s:SAME_AS]->(b)
""" + _PENDING_WHERE + """
  RETURN count(s) AS total
}
CALL () {
  MATCH (a)-[s:SAME_AS]->(b)
""" + _PENDING_WHERE + """
  WITH a, s, b ORDER BY s.status DESC, s.created_at DESC SKIP $skip LIMIT $limit
  WITH """ + _MERGE_COLUMNS + """
  RETURN collect({user_id: user_id, from: from, same_as: same_as, into: into}) AS rows
}
RETURN total, rows
"""

# One subject's: found through the user_id index on its entities.
MERGES_PENDING_FOR_USER = """
MATCH (a:Entity {user_id: $user_id})-[s:SAME_AS]->(b:Entity {user_id: $user_id})
WHERE s.status = 'pending'
""" + _MERGE_FILTERS + """
WITH a, s, b ORDER BY s.created_at DESC SKIP $skip LIMIT $limit
""" + _MERGE_ROW

MERGES_PENDING_FOR_USER_COUNT = """
MATCH (a:Entity {user_id: $user_id})-[s:SAME_AS]->(b:Entity {user_id: $user_id})
WHERE s.status = 'pending'
""" + _MERGE_FILTERS + """
RETURN count(s) AS total
"""

MERGES_DECIDED = """
MATCH (a:Entity)-[s:SAME_AS]->(b:Entity)
WHERE s.status IN ['confirmed', 'auto', 'rejected'] AND ($user_id IS NULL OR a.user_id = $user_id)
""" + _MERGE_FILTERS + """
WITH a, s, b ORDER BY coalesce(s.decided_at, s.created_at) DESC SKIP $skip LIMIT $limit
""" + _MERGE_ROW

# --- facts ------------------------------------------------------------------------------------

FACT_SUBJECTS = """
MATCH (f:Fact {user_id: $user_id})
RETURN f.subject AS subject, count(*) AS facts, sum(CASE WHEN f.status = 'current' THEN 0 ELSE 1 END) AS replaced
ORDER BY replaced DESC, f.subject
LIMIT 200
"""

# The people with superseded facts nobody has confirmed or reverted yet, most first (REVIEW_COUNTS's rule):
# what the fact timelines offer before a person is chosen.
FACTS_TO_CONFIRM_PEOPLE = """
MATCH (f:Fact {status: 'superseded'})-[r:SUPERSEDED_BY]->()
WHERE r.confirmed_at IS NULL AND r.reverted_at IS NULL AND f.user_id IS NOT NULL
WITH f.user_id AS user_id, count(DISTINCT f) AS facts, collect(DISTINCT f.subject) AS subjects
RETURN user_id, facts, subjects[..5] AS subjects
ORDER BY facts DESC, user_id LIMIT $limit
"""

FACT_TIMELINE = """
MATCH (f:Fact {user_id: $user_id})
WHERE toLower(f.subject) = toLower($subject)
OPTIONAL MATCH (f)-[r:SUPERSEDED_BY]->(n:Fact {user_id: $user_id})
RETURN f AS fact, r AS supersession, n.uid AS newer_uid
ORDER BY f.predicate, coalesce(f.valid_from, f.recorded_at), f.recorded_at
"""

FACT_GET = """
MATCH (f:Fact {uid: $uid, user_id: $user_id})
OPTIONAL MATCH (f)-[:SUPERSEDED_BY]->(n:Fact {user_id: $user_id})
RETURN f AS fact, n AS newer
"""

# Confirming only marks the supersession as reviewed; both facts stay as they are.
FACT_CONFIRM = """
MATCH (old:Fact {uid: $uid, user_id: $user_id, status: 'superseded'})-[r:SUPERSEDED_BY]->(new:Fact {user_id: $user_id})
SET r.confirmed_at = datetime(), r.confirmed_by = $actor
RETURN new.uid AS newer_uid
"""

# Reverting makes the older fact current again and retracts the newer; both stay.
FACT_REVERT = """
MATCH (old:Fact {uid: $uid, user_id: $user_id, status: 'superseded'})-[r:SUPERSEDED_BY]->(new:Fact {user_id: $user_id})
SET old.status = 'current', old.valid_until = null, old.expired_at = null
SET new.status = 'retracted', new.expired_at = datetime()
SET r.reverted_at = datetime(), r.reverted_by = $actor
RETURN new.uid AS newer_uid
"""

# --- reasoning traces -------------------------------------------------------------------------

_TRACE_FILTERS = """
WHERE ($user_id IS NULL OR t.user_id = $user_id) AND ($agent_id IS NULL OR t.agent_id = $agent_id)
  AND ($session_id IS NULL OR t.session_id = $session_id)
  AND ($outcome IS NULL OR ($outcome = 'open' AND t.completed_at IS NULL)
       OR ($outcome = 'success' AND t.success = true) OR ($outcome = 'failure' AND t.success = false))
  AND ($since IS NULL OR t.started_at >= $since) AND ($until IS NULL OR t.started_at < $until)
"""

TRACES_PAGE = """
MATCH (t:ReasoningTrace)
""" + _TRACE_FILTERS + """
WITH t ORDER BY t.started_at DESC SKIP $skip LIMIT $limit
RETURN t.user_id AS user_id, t AS trace, COUNT { (t)-[:HAS_STEP]->() } AS steps
"""

TRACES_COUNT = """
MATCH (t:ReasoningTrace)
""" + _TRACE_FILTERS + """
RETURN count(t) AS total
"""

TRACE_GET = """
MATCH (t:ReasoningTrace {uid: $uid, user_id: $user_id})
RETURN t AS trace
"""

# Exact cosine over the same subject's traces only.
TRACES_SIMILAR = """
MATCH (t:ReasoningTrace {uid: $uid, user_id: $user_id})
MATCH (o:ReasoningTrace {user_id: $user_id})
WHERE o <> t AND o.task_embedding IS NOT NULL AND t.task_embedding IS NOT NULL
WITH o, vector.similarity.cosine(t.task_embedding, o.task_embedding) AS score
ORDER BY score DESC LIMIT $limit
RETURN o AS trace, score
"""

# --- bench_review -----------------------------------------------------------------------------

# The bench's people have ids of their own prefix, so what it seeds is found (and removed) by its owner alone.
BENCH_PREFIX = "review-bench-"
BENCH_FOREIGN_NODES = "MATCH (n) WHERE NOT coalesce(n.user_id, '') STARTS WITH $prefix RETURN count(n)"

BENCH_PROPOSALS_CREATE = """
UNWIND $rows AS row
CREATE (a:Entity {uid: row.a, user_id: row.user_id, name: row.a_name, type: row.type, aliases: [],
                  created_at: datetime()})
CREATE (b:Entity {uid: row.b, user_id: row.user_id, name: row.b_name, type: row.type,
                  aliases: [row.b_name + ' Ltd'], created_at: datetime()})
CREATE (a)-[:SAME_AS {status: 'pending', confidence: row.score, scores: row.scores, evidence: row.evidence,
                      created_at: datetime() - duration({seconds: row.age})}]->(b)
"""

BENCH_DELETE = """
MATCH (n:Entity) WHERE n.user_id STARTS WITH $prefix
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*)
"""

# --- the admin index --------------------------------------------------------------------------

# Shown on every admin page (the sidebar), so its cost is bounded: index seeks that stop after $cap + 1
# rows, and the label count store. The (status, created_at) index serves a status filter only with
# created_at present, as every proposal has it (the queue's own count asks the same). A superseded
# fact waits for review while a supersession of it is neither confirmed nor reverted.
REVIEW_COUNTS = """
CALL () {
  MATCH ()-[s:SAME_AS]->() WHERE s.status = 'pending' AND s.created_at IS NOT NULL
  WITH s LIMIT $cap + 1
  RETURN count(s) AS pending_merges
}
CALL () {
  MATCH (f:Fact {status: 'superseded'})-[r:SUPERSEDED_BY]->()
  WHERE r.confirmed_at IS NULL AND r.reverted_at IS NULL
  WITH DISTINCT f LIMIT $cap + 1
  RETURN count(f) AS facts_to_confirm
}
CALL () {
  MATCH (t:ReasoningTrace)
  RETURN count(t) AS traces
}
RETURN pending_merges, facts_to_confirm, traces
"""

