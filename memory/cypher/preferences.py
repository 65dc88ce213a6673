"""Cypher of preferences: one node per topic key and polarity, with a statement per message that says it."""

from memory.cypher.clauses import kept

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
SET e.key = row.statement_key, e.valid_from = row.valid_from, e.via = null
MERGE (u)-[:HAS_PREFERENCE]->(p)
RETURN count(*) AS written
"""

# Every preference of a person that settling reads (not retracted), with its own statements (not those it carries
# for its duplicates, `via`); one written before topics, polarities or statements were kept has what it has.
PREFERENCES_TO_SETTLE = """
MATCH (p:Preference {user_id: $user_id})
WHERE p.status IN ['current', 'superseded']
RETURN p.uid AS uid, p.topic AS topic, p.preference AS preference, p.polarity AS polarity, p.category AS category,
       p.embedding AS embedding, p.kept_apart AS kept_apart, p.status AS status,
       coalesce(p.first_key, toString(p.valid_from)) AS since,
       [(p)-[e:EXTRACTED_FROM]->(m:Message) WHERE e.key IS NOT NULL AND e.via IS NULL |
        {key: e.key, valid_from: e.valid_from, stored_at: coalesce(m.stored_at, m.created_at), message_uid: m.uid}]
         AS statements
"""

# Writes what ingest.preferences_settle worked out for all of a person's preferences: status (and validity, for a node
# with statements), the one SUPERSEDED_BY it has (by the other polarity, or `reason: duplicate` by the node that
# stands for its meaning), and the statements a node carries for its duplicates (EXTRACTED_FROM with `via`, never
# where it has one of its own). A correction's edge, from a retracted node, is never touched.
PREFERENCES_SETTLE = """
UNWIND $rows AS row
MATCH (n:Preference {uid: row.uid, user_id: $user_id})
SET n.status = row.status
FOREACH (_ IN CASE WHEN row.timeline THEN [1] ELSE [] END |
  SET n.valid_from = row.valid_from, n.valid_until = row.valid_until, n.recorded_at = row.recorded_at,
      n.expired_at = row.expired_at)
WITH n, row
CALL (n, row) {
  MATCH (n)-[old:SUPERSEDED_BY]->(other:Preference)
  WHERE other.status <> 'retracted' AND (row.superseded_by IS NULL OR other.uid <> row.superseded_by
                                         OR coalesce(old.reason, '') <> coalesce(row.reason, ''))
  DELETE old
  RETURN count(*) AS dropped
}
CALL (n, row) {
  WITH n, row WHERE row.superseded_by IS NOT NULL
  MATCH (new:Preference {uid: row.superseded_by, user_id: $user_id})
  MERGE (n)-[r:SUPERSEDED_BY]->(new)
  SET r.reason = row.reason
  RETURN count(*) AS linked
}
CALL (n, row) {
  MATCH (n)-[e:EXTRACTED_FROM]->(m:Message)
  WHERE e.via IS NOT NULL AND NOT m.uid IN [s IN row.via | s.message_uid]
  DELETE e
  RETURN count(*) AS unlinked
}
CALL (n, row) {
  UNWIND row.via AS s
  MATCH (m:Message {uid: s.message_uid, user_id: $user_id})
  MERGE (n)-[e:EXTRACTED_FROM]->(m)
  SET e.key = s.key, e.valid_from = s.valid_from, e.via = s.via
  RETURN count(*) AS carried
}
RETURN count(*) AS settled
"""

# The people with preferences (one, or everyone), for a search for duplicates.
PREFERENCE_OWNERS = """
MATCH (p:Preference)
WHERE $user_id IS NULL OR p.user_id = $user_id
RETURN DISTINCT p.user_id AS user_id ORDER BY user_id
"""

# Undoing a merge of duplicates: the duplicate is current again and kept apart, so that no settling merges it again.
PREFERENCE_DUPLICATES_RESTORE = """
MATCH (d:Preference {status: 'superseded'})-[r:SUPERSEDED_BY {reason: 'duplicate'}]->(:Preference)
WHERE $user_id IS NULL OR d.user_id = $user_id
SET d.status = 'current', d.kept_apart = true
DELETE r
RETURN d.user_id AS user_id, d.uid AS uid
"""

PREFERENCES_SEARCH = """
MATCH (n:Preference {user_id: $user_id}) WHERE toLower(n.category + ' ' + n.preference) CONTAINS $q
  AND """ + kept(label="Preference", node="n") + """
RETURN n.uid AS uid, n {.category, .preference, .status} AS item ORDER BY n.valid_from DESC LIMIT $limit
"""


# The person's standing instructions that hold now, within retention, oldest first (memory.context serves them too).
STANDING_INSTRUCTIONS = """
MATCH (p:Preference {user_id: $user_id})
WHERE p.category = $instruction AND p.status = 'current' AND """ + kept(label="Preference", node="p") + """
RETURN p AS preference
ORDER BY p.valid_from, p.uid
"""
