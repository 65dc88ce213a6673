"""Schemathesis hooks for tests/portal/test_schema.py (loaded through SCHEMATHESIS_HOOKS)."""

import schemathesis


@schemathesis.hook
def filter_body(context, body) -> bool:
    """Leave out appends that state `created_at`: its bounds move with the clock and the conversation (not in
    the future, not before the message before it), which no schema can state; tests/memory/api/test_dates.py
    covers them."""
    messages = body.get("messages") if isinstance(body, dict) else None
    return not (isinstance(messages, list) and any(isinstance(m, dict) and "created_at" in m for m in messages))
