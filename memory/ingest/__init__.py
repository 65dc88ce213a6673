"""Turn one stored message into long-term memory: extraction, resolution, supersession.

What a message states is keyed by what it is about, not by the message: an entity by its person,
type and normal name, a fact by its subject, predicate and object, a preference by its topic key
(the stems of its topic's words: "dancing" and "all dances" are one) and polarity. Each statement links its node
to the message (EXTRACTED_FROM, MENTIONS) with the time it was said, and every property that several statements
could set comes from the earliest of them. Which fact or preference is current is then worked out from all statements in the order they were
said (a stated valid_from, then the message's created_at, then its seq), so the graph is a function
of the messages and their order, never of the order extraction ran in. Running it twice changes
nothing.

A person's (or a reviewer's) correction is the other input: the wrong node is retracted and a new
version takes over its statements, and every later statement of the wrong value is written to that
version too (corrections_follow), so the graph is a function of the messages and the corrections,
whichever came first.

One module per step: writes (a message's extraction written), keys, resolution, supersession, corrections and
dedupe; what the rest of memory uses is importable from here.
"""

from memory.ingest.corrections import corrections_follow
from memory.ingest.dedupe import Duplicates, duplicates_find, duplicates_merge, preference_duplicates_restore
from memory.ingest.keys import (Statement, derived_uid, entity_key, entity_uid, preference_key, preference_uid,
                                statement_key_restated)
from memory.ingest.supersession import (StatementGroup, group_settle, message_statement_groups,
                                        node_statement_groups, timeline_settle)
from memory.ingest.writes import (extraction_from_explicit, memory_write, message_copies_fill, message_extract,
                                  message_extraction_failed, messages_reextract)

__all__ = [
    "corrections_follow", "Duplicates", "duplicates_find", "duplicates_merge", "preference_duplicates_restore",
    "Statement", "derived_uid", "entity_key", "entity_uid", "preference_key", "preference_uid",
    "statement_key_restated", "StatementGroup", "group_settle", "message_statement_groups", "node_statement_groups",
    "timeline_settle", "extraction_from_explicit", "memory_write", "message_copies_fill", "message_extract",
    "message_extraction_failed", "messages_reextract",
]
