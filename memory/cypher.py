"""Raw Cypher of the memory app, as named constants with $parameters."""

SCHEMA = [
    # One fulltext index over an entity's name and its aliases, for resolution and recall.
    "CREATE FULLTEXT INDEX entity_names IF NOT EXISTS FOR (e:Entity) ON EACH [e.name, e.aliases]",
    "CREATE INDEX conversation_user_session IF NOT EXISTS FOR (c:Conversation) ON (c.user_id, c.session_id)",
]
