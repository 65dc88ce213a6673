"""The memory graph's indexes and constraints beyond what its node classes declare (install_labels installs them).

Vector indexes take neo4j-agent-memory's names: Neo4j allows one vector index per label and property, so a NAM
agent (which searches them by name) and the portal share each one.
"""

SCHEMA = [
    # Words stemmed ("painted" finds "painting"): recall by words on chat held-out by rotation rose by 3 points.
    "CREATE FULLTEXT INDEX message_words IF NOT EXISTS FOR (m:Message) ON EACH [m.content, m.user_id] "
    "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}",
    "CREATE FULLTEXT INDEX entity_names IF NOT EXISTS FOR (e:Entity) ON EACH [e.name, e.aliases, e.user_id]",
    "CREATE FULLTEXT INDEX fact_text IF NOT EXISTS FOR (f:Fact) ON EACH [f.subject, f.predicate, f.object, f.user_id]",
    "CREATE INDEX conversation_user_session IF NOT EXISTS FOR (c:Conversation) ON (c.user_id, c.session_id)",
    "CREATE INDEX message_user_client IF NOT EXISTS FOR (m:Message) ON (m.user_id, m.client_id)",
    # A person's messages by time: the newest first for the query focus, a span for the time branch.
    "CREATE INDEX message_user_created IF NOT EXISTS FOR (m:Message) ON (m.user_id, m.created_at)",
    "CREATE INDEX preference_user_topic IF NOT EXISTS FOR (p:Preference) ON (p.user_id, p.topic)",
    "CREATE INDEX preference_user_topic_key IF NOT EXISTS FOR (p:Preference) ON (p.user_id, p.topic_key)",
    # One entity per person, type and normal name, even if a writer derived another uid for it.
    "CREATE CONSTRAINT entity_person_type_key IF NOT EXISTS FOR (e:Entity) REQUIRE (e.user_id, e.type, e.key) IS UNIQUE",
]

# Where the server filters vector searches inside the index (Neo4j 2026.01+, portal.graphdb
# .vector_search_filters): messages by person and time, so recall need not score all of a person's messages.
FILTERED_VECTOR_INDEXES = ("message_embedding_filtered",)
SCHEMA_VECTOR_FILTERED = [
    "CYPHER 25 CREATE VECTOR INDEX message_embedding_filtered IF NOT EXISTS FOR (m:Message) ON m.embedding "
    "WITH [m.user_id, m.created_at] OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, "
    "`vector.similarity_function`: 'cosine'}}",
]

VECTOR_INDEXES = (
    ("message_embedding_idx", "Message", "embedding"),
    ("entity_embedding_idx", "Entity", "embedding"),
    ("preference_embedding_idx", "Preference", "embedding"),
    ("fact_embedding_idx", "Fact", "embedding"),
    ("task_embedding_idx", "ReasoningTrace", "task_embedding"),
)
SCHEMA_VECTOR = [
    "CREATE VECTOR INDEX " + name + " IF NOT EXISTS FOR (n:" + label + ") ON (n." + prop + ") "
    "OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}"
    for name, label, prop in VECTOR_INDEXES
]

# Indexes an older install made that a constraint now replaces (Neo4j refuses the constraint beside
# them), the unstemmed message index message_words replaced, and the vector indexes it made under
# neomodel's names before they took NAM's.
SCHEMA_REPLACED = ["DROP INDEX index_User_user_id IF EXISTS", "DROP INDEX message_content IF EXISTS"] + [
    "DROP INDEX vector_index_" + label + "_" + prop + " IF EXISTS" for _, label, prop in VECTOR_INDEXES]
