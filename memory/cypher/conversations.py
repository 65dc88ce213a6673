"""Cypher of conversations: found or begun for an append, listed for the person's pages, emptied ones deleted."""

from memory.cypher.clauses import (CONVERSATION_MERGE_CLAUSE, CONVERSATION_TAIL, PERSON_WRITE_LOCK, chain_back, kept,
                                   nam_id)

# The person's node is locked first, as every extraction write locks it first (PERSON_WRITE_LOCK):
# one lock order, so an append and a worker never deadlock.
CONVERSATION_MERGE = PERSON_WRITE_LOCK + CONVERSATION_MERGE_CLAUSE + nam_id("c") + """
WITH c
// The time of the last message (a new one may not be said before it), and the messages already stored
// that the new batch might repeat: by client id (through its index), or by content among the last few.
""" + CONVERSATION_TAIL + """
CALL (c) {
  MATCH (m:Message) USING INDEX m:Message(client_id)
  WHERE m.client_id IN $client_ids AND m.user_id = $user_id AND (c)-[:HAS_MESSAGE]->(m)
  RETURN collect([m.uid, m.seq, m.client_id, m.content_hash]) AS by_client
}
CALL (c, tail) {  // the last few first, then their hashes: no seek of every message with a common hash
  """ + chain_back(above="c.last_seq - $window") + """
  WITH collect(m) AS last
  RETURN [m IN last WHERE m.content_hash IN $hashes | [m.uid, m.seq, m.client_id, m.content_hash]] AS by_content
}
RETURN c.uid AS uid, tail.created_at AS last_created_at, by_client + by_content AS seen,
       tail IS NULL OR tail.speaker IS NOT NULL AS labelling
"""

# The person's pages show what is within retention only (the person's $cutoffs).
CONVERSATIONS_RECENT = """
MATCH (c:Conversation {user_id: $user_id})
OPTIONAL MATCH (c)-[:HAS_MESSAGE]->(m:Message)
WHERE """ + kept(label="Message", node="m") + """
WITH c, count(m) AS messages, max(m.created_at) AS last_at
RETURN c.uid AS uid, c.session_id AS session_id, c.agent_id AS agent_id, c.title AS title,
       c.created_at AS created_at, messages, coalesce(last_at, c.created_at) AS last_at
ORDER BY last_at DESC LIMIT $limit
"""

CONVERSATION_MESSAGES = """
MATCH (c:Conversation {uid: $uid, user_id: $user_id})
OPTIONAL MATCH (c)-[:HAS_MESSAGE]->(m:Message)
WHERE """ + kept(label="Message", node="m") + """
WITH c, m ORDER BY m.seq
RETURN c.uid AS uid, c.session_id AS session_id, c.agent_id AS agent_id, c.title AS title,
       c.created_at AS created_at, c.last_seq AS last_seq,
       [x IN collect(m) | {uid: x.uid, role: x.role, content: x.content, seq: x.seq, created_at: x.created_at}]
         AS messages
"""

# The person's conversations of these sessions, to link what an agent read to the conversation it served.
CONVERSATIONS_OF_SESSIONS = """
MATCH (c:Conversation {user_id: $user_id}) WHERE c.session_id IN $sessions
RETURN c.session_id AS session_id, c.uid AS uid, c.title AS title
"""

# Conversations left with neither messages nor traces, a batch at a time.
EMPTY_CONVERSATIONS_DELETE = """
MATCH (c:Conversation {user_id: $user_id})
WHERE NOT (c)-[:HAS_MESSAGE]->() AND NOT (c)-[:HAS_TRACE]->()
WITH c LIMIT $batch
DETACH DELETE c
RETURN count(*) AS deleted
"""

