"""The audit trail every app writes to, and the digest that names a subject in it without naming them."""

import hashlib

from django.conf import settings
from django.db import models
from django.utils import timezone


def user_id_digest(user_id: str) -> str:
    """Return the SHA-256 of a subject's public id: recognisable later, yet holding no id or content."""
    return hashlib.sha256(user_id.encode()).hexdigest()


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

    def __str__(self):
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor_label or 'system'} {self.action}"
