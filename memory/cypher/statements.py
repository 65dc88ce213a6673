"""Cypher of what facts and preferences share: their statements, the settling of which is current, and the
versions corrections make. Each query exists once per label (`STATED`), built by a function of the label."""

from memory.cypher.clauses import statement_group

STATED = ("Fact", "Preference")


# Writes what ingest.timeline_settle worked out for one group; SUPERSEDED_BY edges inside the group
# follow it, while an edge to a retracted node (a reviewer's revert) is kept as the record.
def _timeline_settle(label: str) -> str:
    return """
UNWIND $rows AS row
MATCH (n:""" + label + """ {uid: row.uid, user_id: $user_id})
SET n.status = row.status, n.valid_from = row.valid_from, n.valid_until = row.valid_until,
    n.recorded_at = row.recorded_at, n.expired_at = row.expired_at
WITH n, row
CALL (n, row) {
  MATCH (n)-[old:SUPERSEDED_BY]->(other:""" + label + """)
  WHERE other.status <> 'retracted' AND (row.superseded_by IS NULL OR other.uid <> row.superseded_by)
  DELETE old
  RETURN count(*) AS dropped
}
CALL (n, row) {
  WITH n, row WHERE row.superseded_by IS NOT NULL
  MATCH (new:""" + label + """ {uid: row.superseded_by, user_id: $user_id})
  MERGE (n)-[:SUPERSEDED_BY]->(new)
  RETURN count(*) AS linked
}
RETURN count(*) AS settled
"""


TIMELINE_SETTLE = {label: _timeline_settle(label) for label in STATED}


# A node's statements with their messages, to carry them over to the version that corrects it.
def _statements_of(label: str) -> str:
    return """
MATCH (n:""" + label + """ {uid: $uid, user_id: $user_id})-[e:EXTRACTED_FROM]->(m:Message {user_id: $user_id})
WHERE e.key IS NOT NULL AND e.via IS NULL
RETURN m.uid AS message_uid, e.key AS key, e.valid_from AS valid_from
"""


STATEMENTS_OF = {label: _statements_of(label) for label in STATED}


# The corrected version is a new node that takes over the wrong one's statements; the wrong one is
# retracted (never current, never held) and kept, with a SUPERSEDED_BY {reason: 'correction'} to the
# version, as the history. Its other supersession edges go: the group is settled again without it.
def _version_create(label: str) -> str:
    return """
MATCH (old:""" + label + """ {uid: $uid, user_id: $user_id})
WHERE old.status IN ['current', 'superseded']
OPTIONAL MATCH (old)-[stale:SUPERSEDED_BY]-(other:""" + label + """)
WHERE stale.reason IS NULL AND other.status <> 'retracted'
DELETE stale
WITH DISTINCT old
CREATE (v:""" + label + """ {uid: $version_uid, user_id: $user_id, id: $version_uid})
SET v += $props, v.status = 'current', v.recorded_at = datetime(), v.first_key = old.first_key, v.corrects = old.uid,
    v.cardinality = old.cardinality,
    v.correction_id = $correction_id, v.corrected_by = $corrected_by
SET old.status = 'retracted'
CREATE (old)-[:SUPERSEDED_BY {reason: 'correction', correction_id: $correction_id, corrected_at: datetime(),
                              corrected_by: $corrected_by}]->(v)
WITH old, v
CALL (old, v) {
  MATCH (old)-[:ABOUT]->(x:Entity {user_id: $user_id})
  MERGE (v)-[:ABOUT]->(x)
  RETURN count(*) AS about
}
CALL (old, v) {
  MATCH (u:User {user_id: $user_id})-[:HAS_PREFERENCE]->(old)
  MERGE (u)-[:HAS_PREFERENCE]->(v)
  RETURN count(*) AS owned
}
CALL (v) {
  UNWIND $statements AS s
  MATCH (m:Message {uid: s.message_uid, user_id: $user_id})
  MERGE (v)-[e:EXTRACTED_FROM]->(m)
  SET e.key = s.key, e.valid_from = s.valid_from, e.correction_id = $correction_id
  RETURN count(*) AS carried
}
RETURN v.uid AS uid
"""


VERSION_CREATE = {label: _version_create(label) for label in STATED}


# Undoing a correction deletes its version (only while nothing corrected it again) and lets the
# version it corrected take part in its group again; the group is settled afterwards.
def _version_undo(label: str) -> str:
    return """
MATCH (old:""" + label + """ {uid: $uid, user_id: $user_id})-[:SUPERSEDED_BY {correction_id: $correction_id}]->
      (v:""" + label + """ {uid: $version_uid, user_id: $user_id})
WHERE v.status <> 'retracted'
SET old.status = 'current', old.valid_until = null
DETACH DELETE v
RETURN old.uid AS uid
"""


VERSION_UNDO = {label: _version_undo(label) for label in STATED}


# For extraction: the newest version of each corrected node (following corrections of corrections),
# so a statement of the wrong value counts as a statement of the corrected one, whenever it is extracted.
def _correction_heads(label: str) -> str:
    return """
UNWIND $uids AS wrong
MATCH (n:""" + label + """ {uid: wrong, user_id: $user_id, status: 'retracted'})
MATCH (n)-[chain:SUPERSEDED_BY*1..20]->(v:""" + label + """ {user_id: $user_id})
WHERE all(r IN chain WHERE r.reason = 'correction') AND v.status <> 'retracted'
RETURN wrong, v.uid AS version_uid, v.stated_from AS stated_from
"""


CORRECTION_HEADS = {label: _correction_heads(label) for label in STATED}


# A statement of the wrong value, written to the version that corrects it (its earliest key wins).
def _corrected_statements_merge(label: str) -> str:
    return """
MATCH (m:Message {uid: $message_uid, user_id: $user_id})
UNWIND $rows AS row
MATCH (v:""" + label + """ {uid: row.version_uid, user_id: $user_id})
MERGE (v)-[e:EXTRACTED_FROM]->(m)
WITH v, e, row, e.key IS NULL OR row.statement_key < e.key AS first_here
SET e.key = CASE WHEN first_here THEN row.statement_key ELSE e.key END,
    e.valid_from = CASE WHEN first_here THEN row.valid_from ELSE e.valid_from END,
    e.correction_id = v.correction_id
RETURN count(*) AS written
"""


CORRECTED_STATEMENTS_MERGE = {label: _corrected_statements_merge(label) for label in STATED}

# The groups corrected nodes are settled in (clauses.statement_group).
NODE_STATEMENT_GROUPS = """
MATCH (n:Fact|Preference {user_id: $user_id}) WHERE n.uid IN $uids
WITH DISTINCT """ + statement_group("n") + """ AS g
RETURN g.label AS label, g.key AS key, g.predicate AS predicate, g.exclusive AS exclusive
"""

