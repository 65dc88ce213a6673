"""Keys derived from SECRET_KEY, one per purpose, so that no key of the portal's is stored anywhere.

A purpose's key changes with SECRET_KEY: what it sealed can no longer be opened, what it signed no longer verifies
against the new key (keep the old public key, see docs/erasure.md).
"""

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings


def derived_key(purpose: str) -> bytes:
    """Return 32 bytes derived from SECRET_KEY for this purpose alone (HKDF-SHA256)."""
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=b"memory-portal",
                info=purpose.encode()).derive(settings.SECRET_KEY.encode())
