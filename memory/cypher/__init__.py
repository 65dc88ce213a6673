"""Raw Cypher of the memory app, one module per graph element, every query a named constant with $parameters (or,
for one per label, a function of the label), built one way: named strings concatenated (clauses.py). NAM's
adoption has its own (adoption.py).

Every query that serves a subject matches on `user_id`. Vector recall scores the subject's own nodes
(found through the `user_id` index) with vector.similarity.cosine, or, for a person with many messages
on Neo4j 2026.01+, asks a vector index that filters by `user_id` inside it: either way other tenants
can never crowd a user's best matches out of an approximate top-k. Fulltext indexes include
`user_id` as a field, so the Lucene query itself is tenant-filtered too. Every public name is importable from
here (`from memory import cypher`, then `cypher.MESSAGES_APPEND`).
"""

from memory.cypher.clauses import (
    nam_id, USER_MERGE, PERSON_WRITE_LOCK, CONVERSATION_MERGE_CLAUSE, CONVERSATION_TAIL, CHAIN_WALK_MAX,
    kept_since, retention_cutoff, kept, expired, moment, held_at, statement_group, NODES_DELETE,
)
from memory.cypher.schema import (
    SCHEMA, FILTERED_VECTOR_INDEXES, SCHEMA_VECTOR_FILTERED, VECTOR_INDEXES, SCHEMA_VECTOR, SCHEMA_REPLACED,
)
from memory.cypher.conversations import (
    CONVERSATION_MERGE, CONVERSATIONS_RECENT, CONVERSATION_MESSAGES, CONVERSATIONS_OF_SESSIONS,
    EMPTY_CONVERSATIONS_DELETE,
)
from memory.cypher.messages import (
    MESSAGES_APPEND, PERSON_NAMES, PERSON_WORDS, PERSON_SAID, MESSAGE_FOR_EXTRACTION, MESSAGE_EMBEDDING_SET, MESSAGES_WITHOUT_COPY,
    MESSAGE_COPIES_SET,
    MESSAGE_EXTRACTION_STATUS, MESSAGE_HELD_SET, MESSAGE_WITHHOLD, MESSAGE_RELEASE, MESSAGES_REEXTRACT,
    EXTRACTIONS_WAITING, EXTRACTIONS_COUNT, MESSAGE_WORD_COUNTS, MESSAGES_SEARCH, MESSAGE_UIDS,
    MESSAGE_STATEMENT_GROUPS, MESSAGES_FORGET, MESSAGE_FORGET, MESSAGE_MEMORY_FORGET, EXPIRED_MESSAGES_FORGET,
)
from memory.cypher.entities import (
    ENTITIES_MERGE, RELATIONS_MERGE, ENTITY_PAIRS, MENTION_SAMPLES, SAME_AS_UPSERT, ENTITIES_FOR_DEDUPE,
    ENTITY_CORRECT, ENTITIES_SEARCH, ENTITY_NEIGHBOURHOOD,
)
from memory.cypher.facts import (
    FACTS_MERGE, FACT_STATEMENTS, FACTS_SEARCH, FACTS_AS_OF, FACTS_PERSON_STATED,
)
from memory.cypher.preferences import (
    PREFERENCES_MERGE, PREFERENCES_TO_SETTLE, PREFERENCES_SETTLE, PREFERENCE_OWNERS, PREFERENCE_DUPLICATES_RESTORE,
    PREFERENCES_SEARCH, STANDING_INSTRUCTIONS,
)
from memory.cypher.statements import (
    STATED, TIMELINE_SETTLE, STATEMENTS_OF, VERSION_CREATE, VERSION_UNDO, CORRECTION_HEADS,
    CORRECTED_STATEMENTS_MERGE, NODE_STATEMENT_GROUPS,
)
from memory.cypher.traces import (
    TRACE_START, TRACE_STEP_ADD, TRACE_TEXTS, TRACE_COMPLETE, TRACES_SEARCH, TRACE_STEPS,
)
from memory.cypher.items import (
    item_list, item_get, ITEMS_TEXT, node_forget, expired_forget, expired_count, label_erase,
)
from memory.cypher.context import (
    VECTOR_SEARCH_OVERFETCH, CONTEXT_READ, CONTEXT_READ_SEARCH,
)

__all__ = [
    "nam_id", "USER_MERGE", "PERSON_WRITE_LOCK", "CONVERSATION_MERGE_CLAUSE", "CONVERSATION_TAIL", "CHAIN_WALK_MAX",
    "kept_since", "retention_cutoff", "kept", "expired", "moment", "held_at", "statement_group", "NODES_DELETE",
    "SCHEMA", "FILTERED_VECTOR_INDEXES", "SCHEMA_VECTOR_FILTERED", "VECTOR_INDEXES", "SCHEMA_VECTOR",
    "SCHEMA_REPLACED", "CONVERSATION_MERGE", "CONVERSATIONS_RECENT", "CONVERSATION_MESSAGES",
    "CONVERSATIONS_OF_SESSIONS", "EMPTY_CONVERSATIONS_DELETE", "MESSAGES_APPEND", "PERSON_NAMES", "PERSON_WORDS", "PERSON_SAID",
    "MESSAGE_FOR_EXTRACTION",
    "MESSAGE_EMBEDDING_SET", "MESSAGES_WITHOUT_COPY", "MESSAGE_COPIES_SET", "MESSAGE_EXTRACTION_STATUS",
    "MESSAGE_HELD_SET", "MESSAGE_WITHHOLD", "MESSAGE_RELEASE", "MESSAGES_REEXTRACT", "EXTRACTIONS_WAITING",
    "EXTRACTIONS_COUNT", "MESSAGE_WORD_COUNTS", "MESSAGES_SEARCH", "MESSAGE_UIDS", "MESSAGE_STATEMENT_GROUPS",
    "MESSAGES_FORGET", "MESSAGE_FORGET", "MESSAGE_MEMORY_FORGET", "EXPIRED_MESSAGES_FORGET", "ENTITIES_MERGE", "RELATIONS_MERGE",
    "ENTITY_PAIRS", "MENTION_SAMPLES", "SAME_AS_UPSERT", "ENTITIES_FOR_DEDUPE", "ENTITY_CORRECT", "ENTITIES_SEARCH",
    "ENTITY_NEIGHBOURHOOD", "FACTS_MERGE", "FACT_STATEMENTS", "FACTS_SEARCH", "FACTS_AS_OF", "FACTS_PERSON_STATED",
    "PREFERENCES_MERGE",
    "PREFERENCES_TO_SETTLE", "PREFERENCES_SETTLE", "PREFERENCE_OWNERS", "PREFERENCE_DUPLICATES_RESTORE",
    "PREFERENCES_SEARCH", "STANDING_INSTRUCTIONS", "STATED", "TIMELINE_SETTLE", "STATEMENTS_OF",
    "VERSION_CREATE", "VERSION_UNDO", "CORRECTION_HEADS", "CORRECTED_STATEMENTS_MERGE", "NODE_STATEMENT_GROUPS",
    "TRACE_START", "TRACE_STEP_ADD", "TRACE_TEXTS", "TRACE_COMPLETE", "TRACES_SEARCH", "TRACE_STEPS", "item_list",
    "item_get",
    "ITEMS_TEXT", "node_forget", "expired_forget", "expired_count", "label_erase", "VECTOR_SEARCH_OVERFETCH",
    "CONTEXT_READ", "CONTEXT_READ_SEARCH",
]
