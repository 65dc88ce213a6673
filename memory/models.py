"""Relational side of memory governance: subjects, agents and tokens, grants, consent, retention, access log."""

import hashlib
import secrets
import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models.signals import post_delete, post_save
from django.utils import timezone

from memory.access_state import access_state_invalidate
from memory.wording import category_label

SCOPES = ("context:read", "messages:write", "traces:write", "knowledge:read", "memory:correct", "memory:forget")
CATEGORIES = ("history", "long_term", "reasoning")
TOKEN_PREFIX = "mp"
# What an agent's untrusted sources (its own turns, its tools, its explicit fields) may do to long-term memory.
# Whatever is chosen, what memory.trust's strict rule flags waits for the person.
UNTRUSTED_WRITES = [("apply", "Add it"), ("hold", "Hold it for review"), ("drop", "Keep none of it")]


def _public_id() -> str:
    return uuid.uuid4().hex


class AccessStateQuerySet(models.QuerySet):
    """Bulk writes send no signals, so they make the cached access state stale themselves."""

    # Written on the hot path without changing who may read what.
    NEUTRAL_FIELDS = frozenset({"last_used_at"})

    def update(self, **kwargs):
        updated = super().update(**kwargs)
        if updated and not kwargs.keys() <= self.NEUTRAL_FIELDS:
            access_state_invalidate()
        return updated

    def bulk_create(self, *args, **kwargs):
        created = super().bulk_create(*args, **kwargs)
        access_state_invalidate()
        return created


def validate_scopes(value):
    unknown = sorted(set(value) - set(SCOPES))
    if not isinstance(value, list) or unknown:
        raise ValidationError(f"Unknown scopes {unknown}; choose from {', '.join(SCOPES)}.")


class Subject(models.Model):
    """A person whose memory the graph holds; `user_id` is the public id on every memory node."""

    objects = AccessStateQuerySet.as_manager()

    account = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="subject")
    user_id = models.CharField(max_length=64, unique=True, default=_public_id, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.account} ({self.user_id})"


class Agent(models.Model):
    """An AI agent that calls the API with a bearer token."""

    objects = AccessStateQuerySet.as_manager()

    agent_id = models.SlugField(max_length=64, unique=True, help_text="Stable public id, stored on the graph.")
    name = models.CharField(max_length=120)
    scopes = models.JSONField(default=list, validators=[validate_scopes])
    rate_limit_per_minute = models.PositiveIntegerField(default=1200)
    untrusted_writes = models.CharField(
        max_length=8, choices=UNTRUSTED_WRITES, default="apply",
        help_text="What this agent's own turns, tools and explicit fields may add to long-term memory, until the "
                  "person chooses (risky details wait for them whatever is chosen).")
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.name


class AgentToken(models.Model):
    """A bearer token; only its SHA-256 digest is stored, the secret is shown once."""

    objects = AccessStateQuerySet.as_manager()

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="tokens")
    name = models.CharField(max_length=120, blank=True)
    prefix = models.CharField(max_length=16, unique=True)
    digest = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    @staticmethod
    def new_secret() -> tuple[str, str, str]:
        """Return (token, prefix, digest) for a fresh random token."""
        prefix = secrets.token_hex(6)
        token = f"{TOKEN_PREFIX}_{prefix}_{secrets.token_urlsafe(32)}"
        return token, prefix, AgentToken.digest_of(token)

    @staticmethod
    def digest_of(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    @property
    def is_usable(self) -> bool:
        now = timezone.now()
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > now)

    def __str__(self):
        return f"{self.agent} {TOKEN_PREFIX}_{self.prefix}_…"


class Grant(models.Model):
    """A subject's permission for one agent to use their memory; paused or revoked, it allows nothing."""

    objects = AccessStateQuerySet.as_manager()

    subject = models.ForeignKey(Subject, on_delete=models.CASCADE, related_name="grants")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="grants")
    granted_at = models.DateTimeField(default=timezone.now)
    revoked_at = models.DateTimeField(null=True, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)
    may_correct = models.BooleanField(
        default=False, help_text="The person lets this agent correct their memory without asking them first.")
    untrusted_writes = models.CharField(
        max_length=8, choices=UNTRUSTED_WRITES, blank=True, default="",
        help_text="The person's choice of what the agent's untrusted sources may add; blank: the agent's default.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["subject", "agent"], name="one_grant_per_agent")]

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    @property
    def effective_untrusted_writes(self) -> str:
        return self.untrusted_writes or self.agent.untrusted_writes


class ConsentRecord(models.Model):
    """One row of the append-only consent ledger; the newest row for a scope decides."""

    objects = AccessStateQuerySet.as_manager()

    subject = models.ForeignKey(Subject, on_delete=models.CASCADE, related_name="consent_records")
    agent = models.ForeignKey(
        Agent, on_delete=models.CASCADE, null=True, blank=True, help_text="Empty means every agent."
    )
    category = models.CharField(max_length=20, choices=[(c, c) for c in CATEGORIES])
    granted = models.BooleanField()
    policy_version = models.CharField(max_length=20, default=settings.CONSENT_POLICY_VERSION)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        indexes = [models.Index(fields=["subject", "category", "-created_at"])]

    def save(self, *args, **kwargs):
        if self.pk:
            raise ValidationError("The consent ledger is append-only.")
        super().save(*args, **kwargs)


class RetentionPolicy(models.Model):
    """How long staff keep a category's memory: the default (no agent), or a stricter one for one agent.

    The stricter of the default and an agent's policy decides what that agent receives; the default
    (or the person's shorter choice) decides when memory is deleted. Empty days keep it forever.
    """

    objects = AccessStateQuerySet.as_manager()

    category = models.CharField(max_length=20, choices=[(c, c) for c in CATEGORIES])
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, null=True, blank=True, related_name="retention_policies",
                              help_text="Empty: the default for every agent.")
    days = models.PositiveIntegerField(null=True, blank=True, validators=[MinValueValidator(1)],
                                       help_text="Keep memory this many days; empty keeps it forever.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["category"], condition=models.Q(agent__isnull=True),
                                    name="one_default_retention_per_category"),
            models.UniqueConstraint(fields=["category", "agent"], name="one_retention_per_agent_category"),
        ]
        verbose_name_plural = "retention policies"

    def clean(self):
        if self.agent_id is None:
            return
        if self.days is None:
            raise ValidationError({"days": "An agent's retention is a number of days, stricter than the default."})
        default = RetentionPolicy.objects.filter(category=self.category, agent__isnull=True).first()
        if default and default.days is not None and self.days > default.days:
            raise ValidationError({"days": f"An agent's retention may only be stricter than the default "
                                           f"({default.days} days)."})

    def __str__(self):
        kept = f"{self.days} days" if self.days else "forever"
        return f"{category_label(self.category)}: {kept} ({self.agent or 'every agent'})"


class RetentionChoice(models.Model):
    """A person's own retention for one category, shorter than what staff set."""

    objects = AccessStateQuerySet.as_manager()

    subject = models.ForeignKey(Subject, on_delete=models.CASCADE, related_name="retention_choices")
    category = models.CharField(max_length=20, choices=[(c, c) for c in CATEGORIES])
    days = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    chosen_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["subject", "category"], name="one_retention_choice_per_category")]


class MemoryAccess(models.Model):
    """Which memory items a context response gave to which agent, for which turn (memory attribution).

    `turn_seq` is the seq the conversation's next message takes: the turn the context served.
    """

    subject = models.ForeignKey(Subject, on_delete=models.CASCADE, related_name="accesses")
    agent = models.ForeignKey(Agent, on_delete=models.SET_NULL, null=True)
    session_id = models.CharField(max_length=128, blank=True)
    turn_seq = models.PositiveIntegerField(null=True, blank=True)
    items = models.JSONField(default=list, help_text="[{type, uid, score}] without content")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        indexes = [models.Index(fields=["subject", "session_id", "turn_seq"])]


class MemoryAccessItem(models.Model):
    """One item of a context response: the indexed form of `MemoryAccess.items`, read by item and by turn."""

    access = models.ForeignKey(MemoryAccess, on_delete=models.CASCADE, related_name="item_rows")
    subject = models.ForeignKey(Subject, on_delete=models.CASCADE, related_name="accessed_items")
    item_type = models.CharField(max_length=20)
    uid = models.CharField(max_length=200)
    score = models.FloatField(default=0.0)

    class Meta:
        indexes = [models.Index(fields=["subject", "uid"])]


class CorrectionStatus(models.TextChoices):
    PROPOSED = "proposed"
    APPLIED = "applied"
    REJECTED = "rejected"
    UNDONE = "undone"


class Correction(models.Model):
    """A correction of one fact, preference or entity: proposed by an agent, or applied by a person or reviewer.

    `value` holds the corrected fields, `previous` what they were; applied, the item `target_uid` is
    superseded by the version `version_uid` (an entity is corrected in place: the two are one).
    """

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    subject = models.ForeignKey(Subject, on_delete=models.CASCADE, related_name="corrections")
    kind = models.CharField(max_length=20)
    target_uid = models.CharField(max_length=64)
    version_uid = models.CharField(max_length=64, blank=True)
    value = models.JSONField(default=dict)
    previous = models.JSONField(default=dict)
    reason = models.CharField(max_length=500, blank=True)
    status = models.CharField(max_length=10, choices=CorrectionStatus.choices, default=CorrectionStatus.PROPOSED)
    agent = models.ForeignKey(Agent, on_delete=models.SET_NULL, null=True, blank=True,
                              help_text="The agent that proposed (or directly made) it.")
    corrected_by = models.CharField(max_length=200, blank=True,
                                    help_text="Provenance: 'the person', 'reviewer <email>' or 'agent <id>'.")
    decided_by = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)
    undone_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["subject", "target_uid"], name="correction_subject_target"),
                   models.Index(fields=["subject", "version_uid"], name="correction_subject_version"),
                   models.Index(fields=["status", "created_at"], name="correction_status_created")]


class HeldStatus(models.TextChoices):
    HELD = "held"
    APPROVED = "approved"
    REJECTED = "rejected"


class HeldMemory(models.Model):
    """What one message from an untrusted source (the agent, its tools, its explicit fields) would add to long-term
    memory, held for the person: nothing of it is in the graph, so nothing of it is served, until it is approved.

    `reasons` say in plain words why it waits (memory.trust); `adds` are the lines it would add. Approved, the
    worker writes the message's memory as if it had applied at once; undone or rejected, it writes nothing.
    """

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    subject = models.ForeignKey(Subject, on_delete=models.CASCADE, related_name="held_memories")
    agent = models.ForeignKey(Agent, on_delete=models.SET_NULL, null=True, blank=True, related_name="held_memories")
    message_uid = models.CharField(max_length=64)
    session_id = models.CharField(max_length=128)
    source = models.CharField(max_length=16, help_text="memory.trust's source: assistant, tool, system or agent.")
    tool_name = models.CharField(max_length=100, blank=True)
    source_url = models.CharField(max_length=2000, blank=True)
    said = models.TextField(help_text="The message's words, as the person reviews them.")
    reasons = models.JSONField(default=list)
    adds = models.JSONField(default=list)
    status = models.CharField(max_length=10, choices=HeldStatus.choices, default=HeldStatus.HELD)
    created_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.CharField(max_length=200, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["subject", "message_uid"], name="one_hold_per_message")]
        indexes = [models.Index(fields=["status", "created_at"], name="held_status_created")]


def _access_state_changed(sender, update_fields=None, **kwargs):
    if update_fields is None or not set(update_fields) <= AccessStateQuerySet.NEUTRAL_FIELDS:
        access_state_invalidate()


# Every save and delete of what decides who may read what, cascades included; bulk writes: AccessStateQuerySet.
for _model in (Subject, Agent, AgentToken, Grant, ConsentRecord, RetentionPolicy, RetentionChoice):
    post_save.connect(_access_state_changed, sender=_model, dispatch_uid=f"access_state_{_model.__name__}")
    post_delete.connect(_access_state_changed, sender=_model, dispatch_uid=f"access_state_delete_{_model.__name__}")
