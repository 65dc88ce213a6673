"""The permissions of the staff review pages, held by the audit trail as seen from review.

The trail itself lives in portal (portal.models.AuditEvent), since every app writes to it; this proxy
keeps review's permissions (`review.review_merges`, ..., `review.view_auditevent`) where they were.
"""

from portal.models import AuditEvent as PortalAuditEvent


class AuditEvent(PortalAuditEvent):
    class Meta:
        proxy = True
        verbose_name = "audit event"
        permissions = [
            ("review_merges", "Can approve, reject and undo entity merges"),
            ("review_facts", "Can confirm and revert superseded facts"),
            ("review_traces", "Can browse and delete reasoning traces"),
            ("view_memory_content", "Can see the content of a user's memory (each view is audited)"),
            ("manage_agents", "Can create agents and issue or revoke their tokens"),
            ("erase_subjects", "Can erase a user's memory on request"),
        ]
