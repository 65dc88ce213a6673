"""Request and response shapes of the agent API (`/api/v1/`), as typed Python values."""

from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal, NotRequired, TypedDict

Role = Literal["user", "assistant", "system", "tool"]
ItemKind = Literal["messages", "facts", "preferences", "entities", "traces"]
CorrectableKind = Literal["facts", "preferences", "entities"]
EntityType = Literal["PERSON", "ORGANIZATION", "LOCATION", "EVENT", "OBJECT"]
ROLES: tuple[str, ...] = ("user", "assistant", "system", "tool")


class ContextMessage(TypedDict):
    role: Role
    content: str


class MessageIn(TypedDict):
    role: Role
    content: str
    client_message_id: NotRequired[str]


class ToolCall(TypedDict):
    tool_name: str
    arguments: NotRequired[Any]
    result: NotRequired[Any]
    status: NotRequired[Literal["success", "error", "timeout", "cancelled"]]
    error: NotRequired[str]
    duration_ms: NotRequired[float]


class Include(TypedDict, total=False):
    history: bool
    long_term: bool
    reasoning: bool
    knowledge: bool


class Limits(TypedDict, total=False):
    history: int
    messages: int
    facts: int
    preferences: int
    entities: int
    traces: int
    knowledge: int


@dataclass(frozen=True)
class ContextItem:
    """One memory item the context was built from (memory attribution)."""

    id: str
    type: Literal["message", "fact", "preference", "entity", "trace", "knowledge"]
    score: float
    text: str
    provenance: dict[str, Any]


@dataclass(frozen=True)
class ContextResult:
    context: str
    items: list[ContextItem]
    token_count: int
    omitted: int
    categories: list[str]

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> "ContextResult":
        return cls(
            context=body["context"], items=[ContextItem(**item) for item in body["items"]],
            token_count=body["token_count"], omitted=body["omitted"], categories=body["categories"],
        )


@dataclass(frozen=True)
class MessageResult:
    """Whether one appended message was stored; when not, `reason` is "duplicate" or "consent_withdrawn".

    `extraction` says whether its extraction is "queued" on the broker or "pending" (the portal queues it
    again later).
    """

    client_message_id: str | None
    stored: bool
    uid: str | None = None
    seq: int | None = None
    reason: str | None = None
    detail: str | None = None
    extraction: str | None = None


@dataclass(frozen=True)
class AppendResult:
    session_id: str
    stored: int
    results: list[MessageResult]

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> "AppendResult":
        return cls(session_id=body["session_id"], stored=body["stored"],
                   results=[MessageResult(**result) for result in body["results"]])


@dataclass(frozen=True)
class TraceStarted:
    """A started trace; `uid` is None and `stored` False when the user withholds consent for reasoning."""

    uid: str | None
    stored: bool
    reason: str | None = None
    detail: str | None = None


@dataclass(frozen=True)
class TraceStep:
    uid: str
    order: int
    tool_call_uids: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ItemPage:
    """A page of items, newest first; pass `next` as the cursor for the following page (None at the end)."""

    items: list[dict[str, Any]]
    next: str | None


class CorrectionValue(TypedDict, total=False):
    """The corrected fields: a fact's `object` or validity, a preference's text or category, an entity's
    name, type or aliases (all of them)."""

    object: str
    valid_from: date
    valid_until: date
    preference: str
    category: str
    name: str
    type: EntityType
    aliases: list[str]


@dataclass(frozen=True)
class Correction:
    """A correction the portal recorded: "proposed" waits for the person or a reviewer (`version_uid` is
    empty until then), "applied" took effect at once because the person lets this agent correct directly."""

    correction: str
    status: Literal["proposed", "applied"]
    kind: CorrectableKind
    target_uid: str
    version_uid: str
