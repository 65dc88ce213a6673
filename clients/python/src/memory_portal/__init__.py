"""Client for the memory portal's agent API; Agent Framework providers live in `memory_portal.agent_framework`."""

from memory_portal.client import AsyncMemoryPortalClient, MemoryPortalClient, __version__
from memory_portal.errors import (
    AccessDenied, AuthenticationFailed, Conflict, InvalidRequest, MemoryPortalError, NotFound, PortalUnreachable,
    RateLimited, ServiceUnavailable,
)
from memory_portal.types import (
    AppendResult, ContextItem, ContextMessage, ContextResult, CorrectableKind, Correction, CorrectionValue,
    EntityType, Include, ItemKind, ItemPage, Limits, MessageIn, MessageResult, Role, ToolCall, TraceStarted, TraceStep,
)

__all__ = [
    "AccessDenied", "AppendResult", "AsyncMemoryPortalClient", "AuthenticationFailed", "Conflict", "ContextItem",
    "ContextMessage", "ContextResult", "CorrectableKind", "Correction", "CorrectionValue", "EntityType", "Include",
    "InvalidRequest", "ItemKind", "ItemPage", "Limits",
    "MemoryPortalClient", "MemoryPortalError", "MessageIn", "MessageResult", "NotFound", "PortalUnreachable",
    "RateLimited", "Role", "ServiceUnavailable", "ToolCall", "TraceStarted", "TraceStep", "__version__",
]
