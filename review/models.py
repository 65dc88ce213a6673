"""The audit trail of governance actions, and the permissions of the staff review pages."""

from django.conf import settings
from django.db import models
from django.utils import timezone


class AuditEvent(models.Model):
    """One governance action: who did what to whose memory, with the state before and after it.

    The subject is kept as the SHA-256 of its public id (as erasure tombstones do), so the trail
    outlives an erasure without naming anyone. `before`/`after` hold statuses, counts and ids, never
    memory content.
    """

    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="+")
    actor_label = models.CharField(max_length=254, blank=True, help_text="Who acted, as recorded at the time.")
    action = models.CharField(max_length=40, db_index=True)
    subject_digest = models.CharField(max_length=64, blank=True, db_index=True)
    target_type = models.CharField(max_length=40, blank=True)
    target_id = models.CharField(max_length=200, blank=True)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        permissions = [
            ("review_merges", "Can approve, reject and undo entity merges"),
            ("review_facts", "Can confirm and revert superseded facts"),
            ("review_traces", "Can browse and delete reasoning traces"),
            ("view_memory_content", "Can see the content of a user's memory (each view is audited)"),
            ("manage_agents", "Can create agents and issue or revoke their tokens"),
            ("erase_subjects", "Can erase a user's memory on request"),
        ]

    def __str__(self):
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor_label or 'system'} {self.action}"
