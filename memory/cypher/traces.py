"""Cypher of reasoning traces: started in a session, given steps with tool calls, completed, searched, read."""

from memory.cypher.clauses import CONVERSATION_MERGE_CLAUSE, USER_MERGE, kept, nam_id

TRACE_START = USER_MERGE + CONVERSATION_MERGE_CLAUSE + nam_id("c") + """
CREATE (t:ReasoningTrace {
  uid: randomUUID(), user_id: $user_id, session_id: $session_id, agent_id: $agent_id,
  task: $task, task_embedding: $embedding, started_at: datetime()
})
SET t.id = t.uid
CREATE (c)-[:HAS_TRACE]->(t)
RETURN t.uid AS uid
"""

TRACE_STEP_ADD = """
MATCH (t:ReasoningTrace {uid: $trace_uid, user_id: $user_id})
WHERE t.completed_at IS NULL
OPTIONAL MATCH (t)-[previous:HAS_STEP]->()
WITH t, coalesce(max(previous.order), 0) + 1 AS order
CREATE (s:ReasoningStep {
  uid: randomUUID(), user_id: $user_id, thought: $thought, action: $action,
  observation: $observation, created_at: datetime()
})
SET s.id = s.uid
CREATE (t)-[:HAS_STEP {order: order}]->(s)
WITH s, order
// Aggregating, the subquery answers one row even for a step without tool calls.
CALL (s) {
  UNWIND $tool_calls AS call
  CREATE (tc:ToolCall {
    uid: randomUUID(), user_id: $user_id, tool_name: call.tool_name, arguments: call.arguments,
    result: call.result, status: call.status, error: call.error, duration_ms: call.duration_ms,
    created_at: datetime()
  })
  SET tc.id = tc.uid
  CREATE (s)-[:HAS_TOOL_CALL]->(tc)
  RETURN collect(tc.uid) AS tool_call_uids
}
RETURN s.uid AS uid, order, tool_call_uids
"""

# The words of an open trace: its task and each step's thought, action and observation.
TRACE_TEXTS = """
MATCH (t:ReasoningTrace {uid: $trace_uid, user_id: $user_id})
WHERE t.completed_at IS NULL
RETURN [t.task] + [(t)-[:HAS_STEP]->(s:ReasoningStep {user_id: $user_id}) | s.thought] +
       [(t)-[:HAS_STEP]->(s:ReasoningStep {user_id: $user_id}) | s.action] +
       [(t)-[:HAS_STEP]->(s:ReasoningStep {user_id: $user_id}) | s.observation] AS texts
"""

TRACE_COMPLETE = """
MATCH (t:ReasoningTrace {uid: $trace_uid, user_id: $user_id})
WHERE t.completed_at IS NULL
SET t.outcome = $outcome, t.success = $success, t.completed_at = datetime(), t.held_reasons = $held_reasons
RETURN t.uid AS uid
"""

TRACES_SEARCH = """
MATCH (n:ReasoningTrace {user_id: $user_id}) WHERE toLower(n.task + ' ' + coalesce(n.outcome, '')) CONTAINS $q
  AND """ + kept(label="ReasoningTrace", node="n") + """
RETURN n.uid AS uid, n {.task, .outcome, .success} AS item ORDER BY n.started_at DESC LIMIT $limit
"""

# A trace's steps in order, each with its tool calls (whole nodes); every node matched on the person's id.
TRACE_STEPS = """
MATCH (t:ReasoningTrace {uid: $uid, user_id: $user_id})-[hs:HAS_STEP]->(s:ReasoningStep {user_id: $user_id})
OPTIONAL MATCH (s)-[:HAS_TOOL_CALL]->(c:ToolCall {user_id: $user_id})
WITH hs, s, c ORDER BY c.created_at
RETURN hs.order AS order, s AS step, collect(c) AS tool_calls
ORDER BY hs.order
"""

