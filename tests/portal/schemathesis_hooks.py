"""Schemathesis hooks for tests/portal/test_schema.py (loaded through SCHEMATHESIS_HOOKS)."""

import schemathesis


@schemathesis.hook
def filter_body(context, body) -> bool:
    """Leave out the bodies whose bounds move with the clock and with stored memory, which no schema can
    state: an append's `created_at` (not in the future, not before the message before it; covered by
    tests/memory/api/test_dates.py) and a correction's `valid_until` (not after today, after `valid_from`)."""
    if not isinstance(body, dict):
        return True
    messages = body.get("messages")
    if isinstance(messages, list) and any(isinstance(m, dict) and "created_at" in m for m in messages):
        return False
    return "valid_until" not in body
