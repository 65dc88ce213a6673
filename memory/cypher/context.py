"""Cypher of the context: everything a context may use, read in one statement (memory.selectors.context_recall)."""

from memory.cypher.clauses import CONVERSATION_TAIL, chain_back, held_at, kept, stated_by

# How many rows the filtered index is asked for per row wanted: it ranks approximately, by quantised
# vectors, so its candidates are re-ranked by exact cosine. 600 candidates for recall's 10 gave recall@10 1.000
# against the exact scan at p95 25 ms for a person with 100,000 messages (400: 0.984; docs/benchmarks-log.md, where
# the branch was 20 deep and this 30).
VECTOR_SEARCH_OVERFETCH = 60


def _support(*said: str) -> str:
    """Return whose words a statement of an item is, `said` what it is about, and the tool a tool message names
    (memory.context says it beside the item)."""
    return "{by: " + stated_by("source", *said) + ", tool: source.tool_name}"


def _holding(*, label: str, node: str) -> str:
    """Return the condition that a fact or preference holds now (or held at $as_of) and is kept."""
    return ("((($as_of IS NULL AND " + node + ".status = 'current') OR ($as_of IS NOT NULL AND " + held_at(node)
            + ")) AND " + kept(label=label, node=node) + ")")


def _held(*, label: str, node: str, limit: str, fields: str, name: str, said: tuple[str, ...],
          where: str = "true") -> str:
    """Return the section of the facts or preferences that hold now (or held at $as_of), the most similar first,
    each with the messages it was extracted from (the first said first) and whose words its statements are."""
    return """
CALL () {
  WITH $sections.long_term AS wanted WHERE wanted
  MATCH (""" + node + ":" + label + """ {user_id: $user_id})
  WHERE """ + _holding(label=label, node=node) + """ AND """ + where + """
  WITH """ + node + """, CASE WHEN """ + node + """.embedding IS NULL THEN 0.0 ELSE vector.similarity.cosine(""" + node + """.embedding, $embedding) END AS score
  ORDER BY score DESC LIMIT $""" + limit + """
  OPTIONAL MATCH (""" + node + """)-[said:EXTRACTED_FROM]->(source:Message)
  WITH """ + node + """, score, source ORDER BY said.key, source.uid
  WITH """ + node + """, score, collect(source.uid) AS message_uids,
       collect(CASE WHEN source IS NOT NULL THEN """ + _support(*(node + "." + value for value in said)) + """ END) AS supports
  ORDER BY score DESC
  RETURN collect(""" + node + """ {""" + fields + """, similarity: score, message_uids: message_uids, supports: supports,
                corrected_by: """ + node + """.corrected_by}) AS """ + name + """
}"""


# The person's standing instructions (preferences of trust.INSTRUCTION's category), oldest first: each bears on every
# answer, whatever the question.
_INSTRUCTIONS_SECTION = """
CALL () {
  WITH $sections.long_term AS wanted WHERE wanted
  MATCH (i:Preference {user_id: $user_id})
  WHERE i.category = $instruction AND """ + _holding(label="Preference", node="i") + """
  WITH i ORDER BY i.valid_from, i.uid LIMIT $instructions_limit
  RETURN collect(i {.uid, .preference, .valid_from}) AS instructions
}"""


def _recallable(node: str) -> str:
    """Return the condition on a message that recall may serve: kept (retention), not held out of recall by
    memory.trust's rules (read at the append, or when its memory was held), and not withheld by the person (an
    instruction it gave revoked, what it would add rejected, something it said forgotten)."""
    return node + ".held_reasons IS NULL AND " + node + ".withheld IS NULL AND " + kept(label="Message", node=node)


# The session's last turns, walked back from the chain's tail.
_HISTORY_SECTION = """
CALL () {
  OPTIONAL MATCH (c:Conversation {user_id: $user_id, session_id: $session_id}) WHERE $sections.history
  """ + CONVERSATION_TAIL.strip() + """
  CALL (c, tail) {
    """ + chain_back(above="c.last_seq - $history_limit") + """ AND """ + _recallable("m") + """
    WITH m ORDER BY m.seq
    RETURN collect(m {.uid, .role, .content, .speaker, .seq, created_at: toString(m.created_at), session_id: c.session_id}) AS recent
  }
  RETURN coalesce(c.last_seq, 0) + 1 AS next_seq, recent
}
"""

# A message's similarity to the question, from its copy in signed bytes (a quarter of the floats' bytes to read;
# within ~4e-4 of the floats' on Neo4j's (1 + cosine) / 2 scale), or from the floats of one written without it
# (before the copy existed, or adopted). Recall's scans rank by it and the messages' section scores by it.
# (A CASE, not coalesce(): with coalesce the scan cost more than the floats' alone.)
_SIMILARITY = ("CASE WHEN m.embedding_int8 IS NULL THEN vector.similarity.cosine(m.embedding, $embedding) "
               "ELSE vector.similarity.cosine(m.embedding_int8, $embedding) END")

# Recall by words, then the turns next to what any branch found, then every candidate message read once, with its
# sentences (memory.units) for the context to hand the model the ones that answer.
_RECALLED_SECTIONS = """
CALL (exclude) {
  WITH exclude WHERE $sections.recall AND $lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('message_words', $lucene, {limit: $depth}) YIELD node, score
  WHERE node.user_id = $user_id AND NOT node.uid IN exclude AND """ + _recallable("node") + """
  RETURN collect({uid: node.uid, score: score}) AS fulltext
}
CALL (vector, time, fulltext, exclude) {
  UNWIND vector + time + fulltext AS hit
  WITH DISTINCT hit.uid AS of, exclude
  MATCH (found:Message {uid: of}) USING INDEX found:Message(uid)
  WHERE found.user_id = $user_id
  MATCH (found)-[:NEXT_MESSAGE]-(n:Message)
  WHERE n.user_id = $user_id AND NOT n.uid IN exclude AND """ + _recallable("n") + """
  RETURN collect({of: of, uid: n.uid}) AS neighbours
}
CALL (vector, time, fulltext, neighbours) {
  UNWIND vector + time + fulltext + neighbours AS hit
  WITH DISTINCT hit.uid AS uid
  MATCH (m:Message {uid: uid}) USING INDEX m:Message(uid)
  WHERE m.user_id = $user_id
  MATCH (c:Conversation)-[:HAS_MESSAGE]->(m)
  RETURN collect(m {.uid, .role, .content, .speaker, .seq, .sentence_spans, .sentence_embeddings_int8,
                    created_at: toString(m.created_at), session_id: c.session_id,
                    similarity: """ + _SIMILARITY + """}) AS messages
}"""

# Entities found by name or by meaning, each with what it is related to; merged-away ones left out.
_ENTITIES_SECTION = """
CALL () {
  WITH $sections.long_term AS wanted WHERE wanted
  CALL () {
    WITH $entity_lucene AS lucene WHERE lucene IS NOT NULL
    CALL db.index.fulltext.queryNodes('entity_names', lucene, {limit: $entities_limit}) YIELD node, score
    WHERE node.user_id = $user_id AND """ + kept(label="Entity", node="node") + """
    RETURN node AS e
    UNION
    MATCH (e:Entity {user_id: $user_id}) WHERE e.embedding IS NOT NULL AND """ + kept(label="Entity", node="e") + """
    WITH e, vector.similarity.cosine(e.embedding, $embedding) AS score
    ORDER BY score DESC LIMIT $entities_limit
    RETURN e
  }
  WITH e, CASE WHEN e.embedding IS NULL THEN 0.0 ELSE vector.similarity.cosine(e.embedding, $embedding) END AS score
  WHERE NOT EXISTS { MATCH (e)-[:SAME_AS {status: 'auto'}]->(:Entity) }
    AND NOT EXISTS { MATCH (e)-[:SAME_AS {status: 'confirmed'}]->(:Entity) }
  ORDER BY score DESC LIMIT $entities_limit
  CALL (e) {  // expanded from the entity: no label on n the planner could seek all the person's entities by
    OPTIONAL MATCH (e)-[r:RELATED_TO]-(n)
    WHERE 'Entity' IN labels(n) AND n.user_id = $user_id AND r.valid_until IS NULL AND """ + kept(label="Entity", node="n") + """
    RETURN collect(DISTINCT {type: r.type, name: n.name, outgoing: startNode(r) = e})[..5] AS related
  }
  CALL (e) {  // whose words name it: the person's, when any of their turns does (found at the first), else every other
    RETURN CASE WHEN EXISTS { MATCH (source:Message {role: 'user'})-[:MENTIONS]->(e)
                              WHERE source.explicit IS NULL OR toLower(source.content) CONTAINS toLower(e.name) }
      THEN [{by: 'user', tool: null}]
      ELSE COLLECT { MATCH (source:Message)-[:MENTIONS]->(e) RETURN DISTINCT """ + _support("e.name") + """ AS support } END AS supports
  }
  WITH e, score, related, supports ORDER BY score DESC
  RETURN collect({uid: e.uid, name: e.name, type: e.type, aliases: coalesce(e.aliases, []), similarity: score,
                  related: related, supports: supports, corrected_by: e.corrected_by}) AS entities
}"""

# Completed traces of similar tasks, each with its first steps.
_TRACES_SECTION = """
CALL () {
  WITH $sections.reasoning AS wanted WHERE wanted
  MATCH (t:ReasoningTrace {user_id: $user_id})
  WHERE t.task_embedding IS NOT NULL AND t.completed_at IS NOT NULL AND t.held_reasons IS NULL
    AND """ + kept(label="ReasoningTrace", node="t") + """
  WITH t, vector.similarity.cosine(t.task_embedding, $embedding) AS score
  ORDER BY score DESC LIMIT $traces_limit
  CALL (t) {
    OPTIONAL MATCH (t)-[hs:HAS_STEP]->(s:ReasoningStep)
    WITH s ORDER BY hs.order
    RETURN collect(coalesce(s.action, s.thought))[..5] AS steps
  }
  RETURN collect(t {.uid, .task, .outcome, .success, similarity: score, steps: steps}) AS traces
}
RETURN next_seq, recent, vector, time, fulltext, neighbours, messages, facts, preferences, instructions, entities,
       traces
"""


def _branch(*, name: str, when: str, found: str) -> str:
    """Return a recall branch's section: the messages `found` (as m, with their score), when recall is asked for."""
    return ("\nCALL (exclude, scan) {\n  WITH exclude, scan WHERE $sections.recall" + when + "\n  " + found.strip()
            + "\n  RETURN collect({uid: m.uid, score: score}) AS " + name + "\n}")


# Everything a context reads, in one statement: the session's last turns; message recall's three branches
# (meaning, words, and meaning within the span a question names) and the turns next to what they found; current
# facts and preferences (or those that held at $as_of); entities with their neighbourhood; similar traces. Each
# section is a CALL that collects its rows, so one that finds nothing (or is not asked for in $sections) keeps
# the row. The query vector is sent once. Every section leaves out what is past its retention ($cutoffs).
# Messages carry their time as text (graphdb.moment_parsed): the driver's own DateTime costs a hundred times more
# to read. `scan` says whether recall scans every one of the person's messages; the two vector branches are given.
def _context_read(*, scan: str, vector_branch: str, time_branch: str) -> str:
    return (_HISTORY_SECTION + "WITH next_seq, recent, [m IN recent | m.uid] AS exclude, " + scan + " AS scan"
            + _branch(name="vector", when="", found=vector_branch)
            + _branch(name="time", when=" AND $after IS NOT NULL", found=time_branch)
            + _RECALLED_SECTIONS
            + _held(label="Fact", node="f", limit="facts_limit", name="facts", said=("subject", "object"),
                    fields=".uid, .subject, .predicate, .object, .valid_from, .valid_until, .recorded_at")
            + _held(label="Preference", node="p", limit="preferences_limit", name="preferences", said=("topic",),
                    fields=".uid, .category, .preference, .valid_from", where="coalesce(p.category, '') <> $instruction")
            + _INSTRUCTIONS_SECTION + _ENTITIES_SECTION + _TRACES_SECTION)


# Recall's vector branches, scanning every one of the person's messages: all of them, and those said in
# the span a question names (through the (user_id, created_at) index).
_VECTOR_BRANCH_SCANNED = """
  MATCH (m:Message {user_id: $user_id})
  WHERE m.embedding IS NOT NULL AND NOT m.uid IN exclude AND """ + _recallable("m") + """
  WITH m, """ + _SIMILARITY + """ AS score
  ORDER BY score DESC LIMIT $depth"""
_TIME_BRANCH_SCANNED = """
  MATCH (m:Message) USING INDEX m:Message(user_id, created_at)
  WHERE m.user_id = $user_id AND m.created_at >= $after AND m.created_at < $before AND m.embedding IS NOT NULL
    AND NOT m.uid IN exclude AND """ + _recallable("m") + """
  WITH m, """ + _SIMILARITY + """ AS score
  ORDER BY score DESC LIMIT $depth"""
CONTEXT_READ = _context_read(scan="true", vector_branch=_VECTOR_BRANCH_SCANNED, time_branch=_TIME_BRANCH_SCANNED)


# The same branches through the in-index filtered search of Neo4j 2026.01+ for a person holding more than
# $exact_scan_max messages (settings.RECALL_EXACT_SCAN_MAX), counted up to one more than that, and only when
# recall is asked for; a person with fewer is scanned, as on 5.26: VECTOR_SEARCH_OVERFETCH candidates
# per message wanted, plus as many as the recent turns it may drop (the index's LIMIT takes parameters only),
# re-ranked by exact cosine.
def _searched(where: str) -> str:
    return """
  MATCH (m:Message)
    SEARCH m IN (VECTOR INDEX message_embedding_filtered FOR $embedding
      WHERE """ + where + """
      LIMIT $depth * """ + str(VECTOR_SEARCH_OVERFETCH) + """ + $history_limit)
  WITH m WHERE NOT m.uid IN exclude AND """ + _recallable("m") + """
  WITH m, vector.similarity.cosine(m.embedding, $embedding) AS score
  ORDER BY score DESC LIMIT $depth"""


def _scanned_or_searched(*, scanned: str, search: str) -> str:
    """Return a branch that scans where `scan` holds (a person with few messages), else searches the index."""

    return ("CALL (exclude, scan) {\n  WITH exclude WHERE scan\n  " + scanned.strip() + "\n"
            "  RETURN m, score\n  UNION ALL\n  WITH exclude WHERE NOT scan\n  " + search.strip() + "\n"
            "  RETURN m, score\n  }\n  WITH m, score")


CONTEXT_READ_SEARCH = "CYPHER 25\n" + _context_read(
    scan="CASE WHEN $sections.recall THEN size(COLLECT { MATCH (n:Message {user_id: $user_id}) RETURN 1 "
         "LIMIT $exact_scan_max + 1 }) <= $exact_scan_max ELSE true END",
    vector_branch=_scanned_or_searched(scanned=_VECTOR_BRANCH_SCANNED, search=_searched("m.user_id = $user_id")),
    time_branch=_scanned_or_searched(scanned=_TIME_BRANCH_SCANNED, search=_searched(
        "m.user_id = $user_id AND m.created_at >= $after AND m.created_at < $before")))
