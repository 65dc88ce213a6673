"""Export and erasure jobs, and the content-free tombstones erasure leaves behind."""

import uuid

from django.db import models
from django.utils import timezone

from memory.models import CATEGORIES, Subject


class JobStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    EXPIRED = "expired"


class ExportJob(models.Model):
    """A zip of everything about one subject, built by a worker and downloadable until it expires."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    subject = models.ForeignKey(Subject, on_delete=models.CASCADE, related_name="export_jobs")
    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.QUEUED)
    items_total = models.PositiveIntegerField(default=0)
    items_done = models.PositiveIntegerField(default=0)
    file_name = models.CharField(max_length=255, blank=True, help_text="Relative to MEDIA_ROOT.")
    size_bytes = models.PositiveBigIntegerField(default=0)
    error = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    @property
    def percent(self) -> int:
        if self.status == JobStatus.DONE:
            return 100
        return int(100 * self.items_done / self.items_total) if self.items_total else 0

    @property
    def is_downloadable(self) -> bool:
        return self.status == JobStatus.DONE and self.expires_at is not None and self.expires_at > timezone.now()


class ErasureScope(models.TextChoices):
    ALL = "all", "all memory"
    CATEGORY = "category", "one category"
    ACCOUNT = "account", "all memory and the account"


class ErasureJob(models.Model):
    """A request to erase a subject's memory (or one category of it), carried out by a worker.

    The row outlives the subject (an erased account) and holds no content: ids of the grants it
    paused while it ran, counts and times.
    """

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    subject = models.ForeignKey(Subject, on_delete=models.SET_NULL, null=True, related_name="erasure_jobs")
    user_id_digest = models.CharField(max_length=64, db_index=True)
    scope = models.CharField(max_length=10, choices=ErasureScope.choices)
    category = models.CharField(max_length=20, blank=True, choices=[(c, c) for c in CATEGORIES])
    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.QUEUED)
    nodes_deleted = models.PositiveIntegerField(default=0)
    paused_grants = models.JSONField(default=list, help_text="Grant ids paused for the run, resumed after it.")
    error = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"Erasure of {self.get_scope_display()}, {self.get_status_display().lower()}"


class ErasureTombstone(models.Model):
    """What an erasure removed and what its residue scan found, per store; no ids, no content."""

    job = models.OneToOneField(ErasureJob, on_delete=models.CASCADE, related_name="tombstone")
    user_id_digest = models.CharField(max_length=64, db_index=True)
    scope = models.CharField(max_length=10, choices=ErasureScope.choices)
    category = models.CharField(max_length=20, blank=True)
    deleted = models.JSONField(default=dict, help_text="Counts removed per store.")
    residue = models.JSONField(default=dict, help_text="Counts the residue scan found per store after erasing.")
    kept = models.JSONField(default=dict, help_text="Counts deliberately kept, with the reason.")
    residue_hits = models.JSONField(default=list, blank=True,
                                    help_text="Where the person's content was still found: label, property, node id.")
    erased_at = models.DateTimeField(default=timezone.now)
    kinds = models.JSONField(default=dict, help_text="Nodes erased per label, counted before erasing.")
    needles = models.BinaryField(null=True, editable=False, help_text=(
        "What the byte-level scan looks for, sealed with a key derived from SECRET_KEY; destroyed once the disk "
        "step has been checked again after a restart or a day."))
    disk_erased_at = models.DateTimeField(null=True, blank=True, help_text="When the disk step ran after it.")
    byte_checks = models.JSONField(default=list, blank=True, help_text=(
        "Each byte-level scan: when, after what (the erasure, the disk step, a restart) and per place the files and "
        "bytes read and the needles found."))
    receipt = models.JSONField(default=dict, blank=True, help_text="The latest signed receipt.")

    class Meta:
        ordering = ["-erased_at"]

    @property
    def residue_total(self) -> int:
        return sum(self.residue.values())
