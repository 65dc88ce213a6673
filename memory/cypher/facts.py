"""Cypher of facts: one node per subject, predicate and object, with a statement per message that says it."""

from memory.cypher.clauses import held_at, kept

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

FACTS_SEARCH = """
MATCH (n:Fact {user_id: $user_id}) WHERE toLower(n.subject + ' ' + n.predicate + ' ' + n.object) CONTAINS $q
  AND """ + kept(label="Fact", node="n") + """
RETURN n.uid AS uid, n {.subject, .predicate, .object, .status, .valid_from, .valid_until} AS item
ORDER BY n.recorded_at DESC LIMIT $limit
"""


# The facts that held at $as_of as the context's `as_of` reads them (held_at), for the review page that shows
# what an agent would have been given then.
FACTS_AS_OF = """
MATCH (f:Fact {user_id: $user_id})
WHERE """ + held_at("f") + """
RETURN f AS fact
ORDER BY f.subject, f.predicate, f.recorded_at
"""


# Whether any of these single-valued facts would replace a current value the person stated themselves (in their own
# turn, not the agent's explicit fields) or set in a correction (not one an agent made on its own: trust.
# correction_source).
FACTS_PERSON_STATED = """
UNWIND $facts AS g
MATCH (f:Fact {user_id: $user_id, predicate: g.predicate, status: 'current'})
WHERE toLower(f.subject) = g.subject_key AND toLower(f.object) <> g.object_key
  AND ((f.corrected_by IS NOT NULL AND (NOT f.corrected_by STARTS WITH $corrected_by_agent
                                        OR f.corrected_by CONTAINS $accepted_by))
       OR EXISTS { MATCH (f)-[:EXTRACTED_FROM]->(m:Message {role: 'user'}) WHERE m.explicit IS NULL })
RETURN count(f) > 0 AS replaced
"""
