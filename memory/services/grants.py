"""Who may use a person's memory: the subject, agents' tokens, grants, consent."""

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from memory.models import CATEGORIES, UNTRUSTED_WRITES, Agent, AgentToken, ConsentRecord, Grant, Subject
from memory.wording import CATEGORY_LABELS
from portal.audit import Actor, audit_record
from portal.exceptions import ApplicationError


def subject_get_or_create(*, user) -> Subject:
    subject, _ = Subject.objects.get_or_create(account=user)
    return subject


@transaction.atomic
def agent_token_issue(*, agent: Agent, name: str = "", expires_at: datetime | None = None,
                      actor: Actor = None) -> tuple[AgentToken, str]:
    """Create a token and return it with its secret, which is not stored and cannot be shown again."""
    secret, prefix, digest = AgentToken.new_secret()
    token = AgentToken.objects.create(agent=agent, name=name, prefix=prefix, digest=digest, expires_at=expires_at)
    audit_record(actor=actor, action="token.issue", target_type="token", target_id=prefix,
                 after={"agent": agent.agent_id, "name": name, "expires_at": expires_at.isoformat() if expires_at else None})
    return token, secret


@transaction.atomic
def agent_token_revoke(*, token: AgentToken, actor: Actor = None) -> None:
    revoked = AgentToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    if revoked:
        audit_record(actor=actor, action="token.revoke", target_type="token", target_id=token.prefix,
                     before={"agent": token.agent.agent_id, "revoked": False}, after={"revoked": True})


@transaction.atomic
def grant_create(*, subject: Subject, agent: Agent, actor=None) -> Grant:
    """Let an agent use the subject's memory, consenting to every category for it (the ledger records it)."""
    grant, created = Grant.objects.get_or_create(subject=subject, agent=agent)
    if not created:
        grant.revoked_at = None
        grant.granted_at = timezone.now()
        grant.save(update_fields=["revoked_at", "granted_at"])
    for category in CATEGORIES:
        ConsentRecord.objects.create(subject=subject, agent=agent, category=category, granted=True, actor=actor)
    audit_record(actor=actor, action="grant.create", user_id=subject.user_id, target_type="agent",
                 target_id=agent.agent_id, before={"granted": not created},
                 after={"granted": True, "consent": list(CATEGORIES)})
    return grant


@transaction.atomic
def grant_revoke(*, subject: Subject, agent: Agent, actor: Actor = None) -> None:
    revoked = Grant.objects.filter(subject=subject, agent=agent, revoked_at__isnull=True).update(
        revoked_at=timezone.now())
    if revoked:
        audit_record(actor=actor, action="grant.revoke", user_id=subject.user_id, target_type="agent",
                     target_id=agent.agent_id, before={"granted": True}, after={"granted": False})


@transaction.atomic
def consent_record(*, subject: Subject, agent: Agent | None, category: str, granted: bool, actor=None) -> ConsentRecord:
    if category not in CATEGORIES:
        raise ApplicationError(f"Unknown consent category {category!r}; choose from {', '.join(CATEGORIES)}.")
    record = ConsentRecord.objects.create(subject=subject, agent=agent, category=category, granted=granted,
                                          actor=actor)
    audit_record(actor=actor, action="consent.grant" if granted else "consent.withdraw", user_id=subject.user_id,
                 target_type="consent", target_id=f"{category}:{agent.agent_id if agent else '*'}",
                 after={"category": category, "agent": agent.agent_id if agent else None, "granted": granted,
                        "policy_version": record.policy_version})
    return record


def consent_refusal(*, category: str) -> dict:
    """Return what a write answers when the subject has not consented to storing this category: nothing stored."""
    return {"stored": False, "reason": "consent_withdrawn",
            "detail": f"The user has not consented to storing {CATEGORY_LABELS[category].lower()}."}


@transaction.atomic
def grant_correction_allow(*, grant: Grant, allowed: bool, actor: Actor = None) -> None:
    """Let an agent correct the person's memory directly (allowed) or only propose corrections."""

    if Grant.objects.filter(pk=grant.pk).exclude(may_correct=allowed).update(may_correct=allowed):
        audit_record(actor=actor, action="grant.correct_allow" if allowed else "grant.correct_propose_only",
                     user_id=grant.subject.user_id, target_type="agent", target_id=grant.agent.agent_id,
                     before={"may_correct": not allowed}, after={"may_correct": allowed})


@transaction.atomic
def grant_untrusted_writes_set(*, grant: Grant, policy: str, actor: Actor = None) -> None:
    """Choose what the agent's untrusted sources may add to the person's long-term memory (UNTRUSTED_WRITES)."""
    if policy not in dict(UNTRUSTED_WRITES):
        raise ApplicationError(f"Unknown choice {policy!r}; choose from {', '.join(dict(UNTRUSTED_WRITES))}.")
    before = grant.effective_untrusted_writes
    if Grant.objects.filter(pk=grant.pk).exclude(untrusted_writes=policy).update(untrusted_writes=policy):
        audit_record(actor=actor, action="grant.untrusted_writes", user_id=grant.subject.user_id, target_type="agent",
                     target_id=grant.agent.agent_id, before={"untrusted_writes": before},
                     after={"untrusted_writes": policy})
