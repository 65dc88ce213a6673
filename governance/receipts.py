"""Erasure receipts: what an erasure deleted (counted by kind), where it was checked (every store logically, every
place on disk byte by byte), when, and the result, signed by the portal so that anyone can verify it later.

The signature is Ed25519 over the receipt's canonical JSON (keys sorted, no spaces, UTF-8), with a key derived from
SECRET_KEY (portal.keys): nothing to store, and the public key, published on the verification page, is all a
verifier needs. A receipt holds no content and no id: the person is the SHA-256 of their id, as on the tombstone.
`receipt_issue` signs one whenever an erasure finishes or is checked again, keeps it on the tombstone (which the
audit trail's erasure rows point to) and records its result in the audit trail.
"""

import base64
import hashlib
import json
from datetime import datetime, timedelta

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from django.conf import settings
from django.utils import timezone

from governance import disk
from governance.models import ErasureTombstone
from memory.kinds import KINDS
from portal.audit import audit_record
from portal.keys import derived_key

ALGORITHM = "Ed25519"
TITLE = "Memory portal erasure receipt"
# Kinds a person reads, by the label an erasure counted.
KIND_NAMES = {kind.label: kind.name for kind in KINDS} | {"Conversation": "conversations", "User": "person nodes"}


def _private_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(derived_key("erasure-receipt"))


def public_key() -> Ed25519PublicKey:
    return _private_key().public_key()


def public_key_pem() -> str:
    return public_key().public_bytes(serialization.Encoding.PEM,
                                     serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def key_id(key: Ed25519PublicKey | None = None) -> str:
    """Return the first 16 hex digits of the SHA-256 of the raw public key: which key signed a receipt."""
    raw = (key or public_key()).public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def canonical(receipt: dict) -> bytes:
    return json.dumps(receipt, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_moment).encode()


def _moment(value):
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"Cannot put {type(value).__name__} in a receipt")


def receipt_build(*, tombstone: ErasureTombstone, issued_at: datetime, disk_step_due: datetime | None) -> dict:
    """Return the receipt of an erasure as it stands: deleted per kind and store, the logical residue per store, each
    byte-level check per place, and the result."""
    job = tombstone.job
    checks = tombstone.byte_checks
    if tombstone.residue_total:
        result = "residue found in the stores: the erasure did not finish"
    elif checks and disk.hits_total(checks[-1]["places"]):
        result = "erased from every store; bytes still found on disk: the next disk step takes them again"
    elif not tombstone.disk_erased_at:
        result = "erased from every store; the disk step has not run yet"
    else:
        result = "erased from every store and from every place on disk that was checked"
    return json.loads(canonical({
        "title": TITLE, "version": 1, "erasure": str(job.public_id), "person": tombstone.user_id_digest,
        "person_is": "the SHA-256 of the person's id, in hexadecimal",
        "scope": tombstone.scope, "category": tombstone.category,
        "requested_at": job.created_at, "erased_at": tombstone.erased_at,
        "deleted": {"by_kind": {KIND_NAMES.get(label, label): n for label, n in sorted(tombstone.kinds.items())},
                    "by_store": tombstone.deleted},
        "checked": {"stores": tombstone.residue, "kept": tombstone.kept, "disk": checks},
        "disk_step": {"ran_at": tombstone.disk_erased_at,
                      "due_by": None if tombstone.disk_erased_at else disk_step_due},
        "result": result, "issued_at": issued_at,
    }))


def disk_step_due(*, at: datetime | None = None) -> datetime:
    """Return when the scheduled disk step next runs: daily at DISK_ERASE_HOUR, in the portal's time zone."""
    now = timezone.localtime(at or timezone.now())
    due = now.replace(hour=settings.DISK_ERASE_HOUR, minute=0, second=0, microsecond=0)
    return due if due > now else due + timedelta(days=1)


def receipt_issue(*, tombstone: ErasureTombstone) -> dict:
    """Sign the erasure's receipt as it stands and keep it on the tombstone; the audit trail records its result."""
    document = receipt_sign(receipt_build(tombstone=tombstone, issued_at=timezone.now(), disk_step_due=disk_step_due()))
    tombstone.receipt = document
    tombstone.save(update_fields=["receipt"])
    audit_record(actor="erasure worker", action="erasure.receipt", target_type="erasure",
                 target_id=tombstone.job.public_id,
                 after={"result": document["receipt"]["result"], "checks": len(tombstone.byte_checks)})
    return document


def receipt_sign(receipt: dict) -> dict:
    """Return the signed receipt document: the receipt, the algorithm, the key's id and the signature."""
    signature = _private_key().sign(canonical(receipt))
    return {"receipt": receipt, "algorithm": ALGORITHM, "key_id": key_id(),
            "signature": base64.b64encode(signature).decode()}


def receipt_verify(document: dict, *, key: Ed25519PublicKey | None = None) -> bool:
    """Return whether a signed receipt document is intact and signed by this portal's key (or `key`)."""
    try:
        signature = base64.b64decode(document["signature"], validate=True)
        (key or public_key()).verify(signature, canonical(document["receipt"]))
    except (InvalidSignature, KeyError, TypeError, ValueError):
        return False
    return document.get("algorithm") == ALGORITHM
