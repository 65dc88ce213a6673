"""Cypher of entities: written by extraction, linked by relations and proposed merges (SAME_AS), corrected in
place, searched and shown with their neighbourhood."""

from memory.cypher.clauses import kept

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

# An entity is corrected in place (its uid is what every statement of its name finds); `correction_id`
# pins name, type and aliases against extraction (ENTITIES_MERGE). Undo passes the values before it.
ENTITY_CORRECT = """
MATCH (e:Entity {uid: $uid, user_id: $user_id})
SET e.name = $name, e.type = $type, e.aliases = $aliases, e.embedding = $embedding,
    e.correction_id = $correction_id, e.corrected_by = $corrected_by
RETURN e.uid AS uid
"""

ENTITIES_SEARCH = """
MATCH (n:Entity {user_id: $user_id})
WHERE (toLower(n.name) CONTAINS $q OR any(a IN coalesce(n.aliases, []) WHERE toLower(a) CONTAINS $q))
  AND """ + kept(label="Entity", node="n") + """
RETURN n.uid AS uid, n {.name, .type} AS item ORDER BY n.name LIMIT $limit
"""

# An entity with what it relates to, what mentions it and which facts are about it, within retention.
ENTITY_NEIGHBOURHOOD = """
MATCH (e:Entity {uid: $uid, user_id: $user_id})
OPTIONAL MATCH (e)-[r:RELATED_TO|SAME_AS]-(other:Entity {user_id: $user_id})
WHERE """ + kept(label="Entity", node="other") + """
WITH e, [link IN collect(DISTINCT {entity: other, link: r, outgoing: startNode(r) = e})
         WHERE link.entity IS NOT NULL][..$limit] AS related
OPTIONAL MATCH (f:Fact {user_id: $user_id})-[:ABOUT]->(e)
WHERE """ + kept(label="Fact", node="f") + """
WITH e, related, collect(DISTINCT f)[..$limit] AS facts
OPTIONAL MATCH (m:Message {user_id: $user_id})-[:MENTIONS]->(e)
WHERE """ + kept(label="Message", node="m") + """
RETURN e AS entity, related, facts, collect(DISTINCT m)[..$limit] AS messages
"""

