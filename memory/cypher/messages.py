"""Cypher of messages: appended at the end of a conversation's chain, read by the extraction worker and its
outbox, searched, and forgotten with what was derived only from them."""

from memory.cypher.clauses import CONVERSATION_TAIL, expired, kept, reason_add, reason_remove, statement_group

# Locks the conversation node first (SET), so the tail read after it is the committed one even if
# two writers got past the Redis lock: the chain cannot fork.
MESSAGES_APPEND = """
MATCH (c:Conversation {uid: $conversation_uid, user_id: $user_id})
SET c._lock = coalesce(c._lock, 0) + 1
WITH c
""" + CONVERSATION_TAIL + """
WITH c, tail
UNWIND range(0, size($messages) - 1) AS i
WITH c, tail, i, $messages[i] AS row
CREATE (m:Message {
  uid: randomUUID(), user_id: $user_id, role: row.role, content: row.content, speaker: row.speaker,
  seq: c.last_seq + i + 1, client_id: row.client_id, content_hash: row.content_hash, agent_id: $agent_id,
  created_at: row.created_at, stored_at: datetime(), extraction_status: 'pending', explicit: row.explicit,
  tool_name: row.tool_name, source_url: row.source_url, held_reasons: row.held_reasons
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
RETURN m.uid AS uid, m.seq AS seq, m.client_id AS client_id
ORDER BY m.seq
"""

# --- the person's own words, as memory.trust reads a claim about them -----------------------------------

# The names the person's own turns are labelled with ("Caroline: ...").
PERSON_NAMES = """
MATCH (m:Message {user_id: $user_id}) WHERE m.role = 'user' AND m.speaker IS NOT NULL
RETURN DISTINCT m.speaker AS name LIMIT 20
"""
# The person's own latest turns said no later than $before (memory.trust reads the details they gave in them).
PERSON_WORDS = """
MATCH (m:Message) USING INDEX m:Message(user_id, created_at)
WHERE m.user_id = $user_id AND m.created_at <= coalesce($before, datetime()) AND m.role = 'user'
RETURN m.content AS content ORDER BY m.created_at DESC LIMIT $limit
"""
# Which of $values ({raw, digits, text}) the messages of $roles (the person's own turns, or theirs and their tools')
# said no later than $before hold: a number by its digits, whatever separates them, anything else by its text,
# case-folded (memory.selectors.PersonWords).
PERSON_SAID = """
MATCH (m:Message {user_id: $user_id}) WHERE m.role IN $roles AND ($before IS NULL OR m.created_at <= $before)
WITH toLower(m.content) AS text,
     reduce(t = m.content, separator IN [' ', '-', '.', '(', ')', '+'] | replace(t, separator, '')) AS digits
UNWIND $values AS v
WITH v, text, digits
WHERE (v.digits IS NOT NULL AND digits CONTAINS v.digits) OR (v.digits IS NULL AND text CONTAINS v.text)
RETURN DISTINCT v.raw AS value
"""

# --- the extraction worker and its outbox -----------------------------------------------------------

MESSAGE_FOR_EXTRACTION = """
MATCH (c:Conversation)-[:HAS_MESSAGE]->(m:Message {uid: $uid, user_id: $user_id})
OPTIONAL MATCH (c)-[:HAS_MESSAGE]->(earlier:Message)
WHERE earlier.seq < m.seq AND earlier.seq >= m.seq - 4
WITH c, m, earlier ORDER BY earlier.seq
RETURN m.uid AS uid, c.session_id AS session_id, m.content AS content, m.role AS role, m.agent_id AS agent_id,
       m.extraction_status AS status, m.explicit AS explicit, m.created_at AS created_at, m.seq AS seq,
       m.stored_at AS stored_at, m.tool_name AS tool_name, m.source_url AS source_url,
       m.held_reasons AS held_reasons, m.forgotten AS forgotten, m.embedding IS NULL AS unembedded,
       m.sentence_spans IS NULL AS unsplit, collect(earlier {.role, .content}) AS earlier
"""

# A message is appended without its vector; the extraction worker sets it first (recall by meaning
# finds the message from then on), whether or not it may extract long-term memory from it. The procedure
# stores 32-bit floats (a SET stores the driver's 64-bit ones), which hold the embedder's float32 output
# exactly: half the bytes took the context statement's p50 from 10.1 to 8.4 ms for a person of 200 messages.
# Beside it, its copy in signed bytes (memory.embeddings.int8_copy), which recall's scan reads instead of
# the floats (docs/benchmarks-log.md). With them, the spans of its sentences and, when it says more than one, their
# vectors' copies (memory.units).
MESSAGE_EMBEDDING_SET = """
MATCH (m:Message {uid: $uid, user_id: $user_id}) WHERE m.embedding IS NULL
CALL db.create.setNodeVectorProperty(m, 'embedding', $embedding)
SET m.embedding_int8 = $embedding_int8, m.sentence_spans = $sentence_spans,
    m.sentence_embeddings_int8 = $sentence_embeddings_int8
"""

# The sentences of a message embedded before messages kept them (memory.units), set when the worker next reads it.
MESSAGE_UNITS_SET = """
MATCH (m:Message {uid: $uid, user_id: $user_id}) WHERE m.sentence_spans IS NULL
SET m.sentence_spans = $sentence_spans, m.sentence_embeddings_int8 = $sentence_embeddings_int8
"""

# Messages with a vector and no copy of it (memory.ingest.message_copies_fill), after $after in uid order (through
# the uid index), and their copies set.
MESSAGES_WITHOUT_COPY = """
MATCH (m:Message) USING INDEX m:Message(uid)
WHERE m.uid > $after AND m.embedding IS NOT NULL AND m.embedding_int8 IS NULL
RETURN m.uid AS uid, m.embedding AS embedding ORDER BY m.uid LIMIT $limit
"""
MESSAGE_COPIES_SET = """
UNWIND $rows AS row
MATCH (m:Message {uid: row.uid}) WHERE m.embedding IS NOT NULL AND m.embedding_int8 IS NULL
SET m.embedding_int8 = row.copy
"""

MESSAGE_EXTRACTION_STATUS = """
MATCH (m:Message {uid: $uid, user_id: $user_id})
SET m.extraction_status = $status, m.extraction_error = $error
"""

# Why a message is held out of recall (memory.trust): set when the strict rule holds what it would add, cleared when
# the person approves it (null), set again when that approval is undone.
MESSAGE_HELD_SET = """
MATCH (m:Message {uid: $uid, user_id: $user_id})
SET m.held_reasons = $reasons
"""

# The person's decision that a message is no longer given to agents ($reason, in their words), and its undoing.
MESSAGE_WITHHOLD = "MATCH (m:Message {uid: $uid, user_id: $user_id})\n" + reason_add(
    node="m", field="withheld", reason="$reason")
MESSAGE_RELEASE = "MATCH (m:Message {uid: $uid, user_id: $user_id})\n" + reason_remove(
    node="m", field="withheld", reason="$reason")

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

# --- reads ----------------------------------------------------------------------------------------

# How many of the subject's newest messages (FOCUS_WINDOW, read in the order of the (user_id,
# created_at) index, so the cost does not grow with the person's memory) contain each word as written,
# and who said them: the names a conversation keeps using (the people talking, addressed by name)
# against names that pick out a few messages, and whose name it is (the one the other party addresses,
# or the one whose turns are labelled with it: "Caroline: ..."). Only the messages holding one of the words are
# copied out of the window (most hold none; a fifth of the statement's CPU at 200 messages a person).
MESSAGE_WORD_COUNTS = """
MATCH (m:Message)
WHERE m.user_id = $user_id AND m.created_at IS NOT NULL AND """ + kept(label="Message", node="m") + """
WITH m ORDER BY m.user_id DESC, m.created_at DESC LIMIT $window
WITH count(m) AS total, collect(CASE WHEN any(word IN $words WHERE m.content CONTAINS word)
                                     THEN m {.content, .role, .speaker} END) AS holding
UNWIND $words AS word
WITH word, total, [m IN holding WHERE m.content CONTAINS word] AS hits
RETURN word, size(hits) AS messages, size([m IN hits WHERE m.role = 'user']) AS by_user,
       size([m IN hits WHERE m.role = 'assistant']) AS by_assistant,
       size([m IN hits WHERE m.speaker = word OR m.speaker STARTS WITH word + ' ']) AS labelled, total
"""

# Case-insensitive search over the text of the person's messages, for their own pages.
MESSAGES_SEARCH = """
MATCH (n:Message {user_id: $user_id}) WHERE toLower(n.content) CONTAINS $q AND """ + kept(label="Message", node="n") + """
RETURN n.uid AS uid, n {.role, .content, .created_at} AS item ORDER BY n.created_at DESC LIMIT $limit
"""

# The person's messages: the outbox names their extraction's keys in Redis by message uid.
MESSAGE_UIDS = "MATCH (m:Message {user_id: $user_id}) RETURN m.uid AS uid"

# What a message states facts or preferences about (the groups they are settled in).
MESSAGE_STATEMENT_GROUPS = """
MATCH (n)-[:EXTRACTED_FROM]->(:Message {uid: $uid, user_id: $user_id})
WHERE (n:Fact OR n:Preference) AND n.first_key IS NOT NULL
WITH DISTINCT """ + statement_group("n") + """ AS g
RETURN g.label AS label, g.key AS key, g.predicate AS predicate, g.exclusive AS exclusive
"""

# --- forgetting -------------------------------------------------------------------------------------

# What the messages `batch` alone state: the groups they state facts or preferences in (to settle again once they
# are gone), and, deleted, the facts and preferences no message outside the batch states and the entities no message
# outside it mentions and no fact is about.
_DERIVED_FORGET = """
CALL (batch) {
  UNWIND batch AS m
  MATCH (d)-[:EXTRACTED_FROM]->(m)
  WHERE (d:Fact OR d:Preference) AND d.first_key IS NOT NULL
  RETURN collect(DISTINCT """ + statement_group("d") + """) AS groups
}
CALL (batch) {
  UNWIND batch AS m
  MATCH (d)-[:EXTRACTED_FROM]->(m)
  WHERE (d:Fact OR d:Preference) AND NOT EXISTS { MATCH (d)-[:EXTRACTED_FROM]->(other:Message) WHERE NOT other IN batch }
  WITH DISTINCT d
  WITH d, d.uid AS uid, d:Fact AS fact
  DETACH DELETE d
  RETURN count(CASE WHEN fact THEN 1 END) AS facts, count(CASE WHEN NOT fact THEN 1 END) AS preferences,
         collect(uid) AS derived
}
CALL (batch) {
  UNWIND batch AS m
  MATCH (m)-[:MENTIONS]->(e:Entity)
  WHERE NOT EXISTS { MATCH (other:Message)-[:MENTIONS]->(e) WHERE NOT other IN batch }
    AND NOT EXISTS { MATCH (:Fact)-[:ABOUT]->(e) }
  WITH DISTINCT e
  WITH e, e.uid AS uid
  DETACH DELETE e
  RETURN count(*) AS entities, collect(uid) AS orphans
}
"""
# Forgetting the messages `batch`, in one statement: what they alone state (_DERIVED_FORGET), then each message,
# one after the other, with its chain linked around the gap (and ending at the message before it, when it was last).
MESSAGES_FORGET = """
WITH batch, [m IN batch | m.uid] AS uids
""" + _DERIVED_FORGET + """
CALL (batch) {
  UNWIND batch AS m
  CALL (m) {
    OPTIONAL MATCH (prev:Message)-[:NEXT_MESSAGE]->(m)
    OPTIONAL MATCH (m)-[:NEXT_MESSAGE]->(next:Message)
    OPTIONAL MATCH (c:Conversation)-[:FIRST_MESSAGE]->(m)
    OPTIONAL MATCH (owner:Conversation {tail_uid: m.uid})-[:HAS_MESSAGE]->(m)
    FOREACH (_ IN CASE WHEN prev IS NOT NULL AND next IS NOT NULL THEN [1] ELSE [] END |
      CREATE (prev)-[:NEXT_MESSAGE]->(next))
    FOREACH (_ IN CASE WHEN c IS NOT NULL AND next IS NOT NULL THEN [1] ELSE [] END |
      CREATE (c)-[:FIRST_MESSAGE]->(next))
    FOREACH (_ IN CASE WHEN owner IS NOT NULL THEN [1] ELSE [] END | SET owner.tail_uid = prev.uid)
    DETACH DELETE m
  }
}
RETURN size(batch) AS nodes, 0 AS parts, facts, preferences, entities, groups, uids + derived + orphans AS uids
"""
MESSAGE_FORGET = "MATCH (n:Message {uid: $uid, user_id: $user_id})\nWITH collect(n) AS batch\n" + MESSAGES_FORGET
# Forgetting what one message added to long-term memory, keeping the message: an approval of held memory undone.
MESSAGE_MEMORY_FORGET = """
MATCH (n:Message {uid: $uid, user_id: $user_id})
WITH collect(n) AS batch
""" + _DERIVED_FORGET + """
CALL (batch) {
  UNWIND batch AS m
  OPTIONAL MATCH (m)<-[e:EXTRACTED_FROM]-()
  DELETE e
  RETURN count(e) AS unlinked
}
CALL (batch) {
  UNWIND batch AS m
  OPTIONAL MATCH (m)-[e:MENTIONS]->()
  DELETE e
  RETURN count(e) AS unmentioned
}
RETURN groups, derived + orphans AS uids
"""
# The oldest expired messages first, so a conversation only ever loses the start of its chain.
EXPIRED_MESSAGES_FORGET = """
MATCH (n:Message {user_id: $user_id}) WHERE """ + expired(label="Message", node="n") + """

WITH n ORDER BY n.created_at, n.seq LIMIT $batch
WITH collect(n) AS batch
""" + MESSAGES_FORGET
