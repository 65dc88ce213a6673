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

PREFERENCES_SEARCH = """
MATCH (n:Preference {user_id: $user_id}) WHERE toLower(n.category + ' ' + n.preference) CONTAINS $q
  AND """ + kept(label="Preference", node="n") + """
RETURN n.uid AS uid, n {.category, .preference, .status} AS item ORDER BY n.valid_from DESC LIMIT $limit
"""

