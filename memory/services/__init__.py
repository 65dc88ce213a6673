"""Writes of memory and of its governance records, one module per family of operations; the public ones are
importable from here too (`from memory import services`, then `services.messages_append(...)`)."""

from memory.services.access_log import ACCESS_GROUP, access_enqueue, access_queue_drain, access_record
from memory.services.adoption import nam_adopt, nam_adopt_since, subject_claim, vector_index_conflicts
from memory.services.corrections import (CORRECTABLE, CorrectionConflict, correction_accept, correction_create,
                                         correction_reject, correction_undo)
from memory.services.forgetting import conversations_empty_erase, expired_forget, item_delete, labels_erase
from memory.services.grants import (agent_token_issue, agent_token_revoke, consent_record, consent_refusal,
                                    grant_correction_allow, grant_create, grant_revoke, grant_untrusted_writes_set,
                                    subject_get_or_create)
from memory.services.holding import held_decide
from memory.services.messages import content_hash, conversation_append, messages_append
from memory.services.traces import trace_complete, trace_start, trace_step_add

__all__ = [
    "ACCESS_GROUP", "access_enqueue", "access_queue_drain", "access_record",
    "nam_adopt", "nam_adopt_since", "subject_claim", "vector_index_conflicts",
    "CORRECTABLE", "CorrectionConflict", "correction_accept", "correction_create", "correction_reject",
    "correction_undo",
    "conversations_empty_erase", "expired_forget", "item_delete", "labels_erase",
    "agent_token_issue", "agent_token_revoke", "consent_record", "consent_refusal", "grant_correction_allow",
    "grant_create", "grant_revoke", "grant_untrusted_writes_set", "subject_get_or_create",
    "held_decide", "content_hash", "conversation_append", "messages_append",
    "trace_complete", "trace_start", "trace_step_add",
]
