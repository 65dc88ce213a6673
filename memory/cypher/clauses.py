"""Cypher clauses and expressions several queries share, each named once.

Every query of the memory app is built one way: named strings concatenated, with a node's variable or a label
passed to a function that returns its clause. A label never comes from input, and is backtick-quoted all the
same (portal.graphdb.quoted).
"""


def nam_id(node: str) -> str:
    """Return the clause giving a node the portal wrote its uid as `id` too: neo4j-agent-memory reads every node by
    `id`, so an agent still on NAM can read what the portal wrote (one a NAM agent wrote keeps NAM's)."""
    return "FOREACH (_ IN CASE WHEN " + node + ".id IS NULL THEN [1] ELSE [] END | SET " + node + ".id = " + node + ".uid)"


# The person's node, as `u`.
USER_MERGE = """
MERGE (u:User {user_id: $user_id})
  ON CREATE SET u.uid = randomUUID(), u.created_at = datetime()
"""
# Taken first in every write of a person's memory: the User node's write lock, held until commit, serialises
# them, so resolution and supersession always see what was committed before, and an append and a worker never
# deadlock (one lock order).
PERSON_WRITE_LOCK = USER_MERGE + "SET u._lock = true REMOVE u._lock\n"

# The person's conversation of $session_id, as `c`, with `u` in scope; a new one remembers the agent that began it.
CONVERSATION_MERGE_CLAUSE = """
MERGE (c:Conversation {user_id: $user_id, session_id: $session_id})
  ON CREATE SET c.uid = randomUUID(), c.agent_id = $agent_id, c.created_at = datetime(), c.last_seq = 0
MERGE (u)-[:HAS_CONVERSATION]->(c)
"""

# The last message of conversation `c`'s chain, as `tail`: the one the conversation names (c.tail_uid,
# set by every append) while it still ends the chain, else found by reading every message (a
# conversation another library wrote, or whose last message a deletion took): the cost of finding it
# does not grow with the conversation.
CONVERSATION_TAIL = """
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


def chain_back(*, above: str) -> str:
    """Return the MATCH of the messages of conversation `c`'s chain from `tail` back (tail included), as m, whose
    seq is above `above` (a Cypher expression), ending in its WHERE for more conditions. Seqs fall along the chain
    backwards, so the walk stops at the first message at or below it: it reads the turns it returns, not
    CHAIN_WALK_MAX of them."""
    return ("MATCH (tail) ((later:Message)<-[:NEXT_MESSAGE]-(earlier:Message) WHERE earlier.seq > " + above + "){0,"
            + str(CHAIN_WALK_MAX) + "} (m:Message)\n  WHERE m.seq > " + above)


# --- retention: what every read leaves out, and what the periodic job deletes ----------------------------

# The oldest moment a label keeps, from the $cutoffs map (category -> moment, null keeps forever). What
# is derived from messages goes with them: long-term memory is kept no longer than history is either.
_CUTOFF = {
    "Message": "$cutoffs.history",
    "ReasoningTrace": "$cutoffs.reasoning",
    "Derived": "CASE WHEN $cutoffs.history IS NULL OR $cutoffs.long_term > $cutoffs.history THEN $cutoffs.long_term "
               "ELSE $cutoffs.history END",
}


def kept_since(*, label: str, node: str) -> str:
    """Return the expression of a node's age for retention: a message from when it was said, a trace from when it
    started; a fact, preference or entity from the newest message that still supports it, so what a newer message
    says again stays, else (written without a message, e.g. adopted) from when it was written."""
    if label == "Message":
        return node + ".created_at"
    if label == "ReasoningTrace":
        return node + ".started_at"
    if label == "Entity":
        return ("coalesce(COLLECT { MATCH (supporting:Message)-[:MENTIONS]->(" + node + ") "
                "RETURN max(supporting.created_at) }[0], " + node + ".created_at)")
    written = node + ".recorded_at" + (", " + node + ".valid_from" if label == "Preference" else "")
    return ("coalesce(COLLECT { MATCH (" + node + ")-[:EXTRACTED_FROM]->(supporting:Message) "
            "RETURN max(supporting.created_at) }[0], " + written + ")")


def retention_cutoff(*, label: str) -> str:
    """Return the expression of the oldest moment a label's nodes are kept, null for ever."""
    return _CUTOFF.get(label, _CUTOFF["Derived"])


def kept(*, label: str, node: str) -> str:
    """Return the condition that a node is within retention (an undated node is kept); the age is not
    worked out when nothing is cut off."""
    cutoff = retention_cutoff(label=label)
    return "(" + cutoff + " IS NULL OR coalesce(" + kept_since(label=label, node=node) + " >= " + cutoff + ", true))"


def expired(*, label: str, node: str) -> str:
    """Return the condition that a node is past retention: what every read leaves out and the periodic job deletes."""
    return "NOT " + kept(label=label, node=node)


# --- valid time ---------------------------------------------------------------------------------------------

def moment(value: str) -> str:
    """Return a stated date as the start of its day (UTC), and a moment as it is, so that the two compare."""
    return ("CASE WHEN " + value + " IS :: DATE NOT NULL THEN datetime({date: " + value + ", timezone: 'UTC'}) ELSE "
            + value + " END")


def stated_by(message: str, *said: str) -> str:
    """Return whose words a statement drawn from `message` is (trust.item_source reads it): the message's role, or
    'agent' when it came in the message's explicit fields, unless the person's own turn names what it is about (one
    of the values `said`: the agent relaying their words)."""
    named = " OR ".join("toLower(" + message + ".content) CONTAINS toLower(" + value + ")" for value in said)
    return ("CASE WHEN " + message + ".explicit IS NULL THEN " + message + ".role WHEN " + message + ".role = 'user' AND ("
            + named + ") THEN 'user' ELSE 'agent' END")


def held_at(node: str) -> str:
    """Return the condition that a fact or preference held at $as_of, as far as is known now.

    Valid time, not the time it was written: from what was stated (else from when it was recorded)
    until it ended; a retracted one never held.
    """
    start = moment("coalesce(" + node + ".valid_from, " + node + ".recorded_at)")
    end = moment(node + ".valid_until")
    return ("(" + start + " <= $as_of AND (" + node + ".valid_until IS NULL OR " + end + " > $as_of) AND " + node
            + ".status <> 'retracted')")


# --- what forgetting shares -------------------------------------------------------------------------------

def reason_add(*, node: str, field: str, reason: str) -> str:
    """Return the clause adding `reason` (an expression) to a node's list property `field` once; a list is never
    left empty: no reason is null, which is what reads test for."""
    found = "coalesce(" + node + "." + field + ", [])"
    return ("SET " + node + "." + field + " = CASE WHEN " + reason + " IN " + found + " THEN " + node + "." + field
            + " ELSE " + found + " + " + reason + " END\n")


def reason_remove(*, node: str, field: str, reason: str) -> str:
    """Return the clause removing `reason` from a node's list property `field`, null once none is left."""
    left = "[r IN coalesce(" + node + "." + field + ", []) WHERE r <> " + reason + "]"
    return "SET " + node + "." + field + " = CASE WHEN size(" + left + ") = 0 THEN null ELSE " + left + " END\n"


def statement_group(node: str) -> str:
    """Return the group a fact or preference is settled in (memory.ingest.StatementGroup) as a map: a fact's
    subject and predicate, a preference's topic; only one value holds at a time in a preference's, and in a
    single-valued predicate's."""
    return ("{label: CASE WHEN " + node + ":Fact THEN 'Fact' ELSE 'Preference' END, key: CASE WHEN " + node
            + ":Fact THEN toLower(" + node + ".subject) ELSE " + node + ".topic END, predicate: " + node
            + ".predicate, exclusive: " + node + ":Preference OR " + node + ".cardinality = 'single'}")


# Nodes `batch` (in scope as a list) and the parts that exist only for them (a trace's steps and tool calls),
# deleted with their relationships; `parts` counts those parts.
NODES_DELETE = """
CALL (batch) {
  UNWIND batch AS n
  OPTIONAL MATCH (n)-[:HAS_STEP]->(step:ReasoningStep)
  OPTIONAL MATCH (step)-[:HAS_TOOL_CALL]->(call:ToolCall)
  WITH collect(DISTINCT step) + collect(DISTINCT call) AS found
  FOREACH (p IN found | DETACH DELETE p)
  RETURN size(found) AS parts
}
FOREACH (n IN batch | DETACH DELETE n)
"""

