"""Sync and async clients for the agent API; both build the same requests and parse the same answers."""

from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx2

from memory_portal.errors import MemoryPortalError, PortalUnreachable, error_from_response
from memory_portal.types import (
    AppendResult, ContextMessage, ContextResult, CorrectableKind, Correction, CorrectionValue, Include, ItemKind,
    ItemPage, Limits, MessageIn, ToolCall, TraceStarted, TraceStep,
)

__version__ = "0.1.0"
T = TypeVar("T")


@dataclass(frozen=True)
class _Call(Generic[T]):
    method: str
    path: str
    parse: Callable[[Any], T]
    json: dict[str, Any] | None = None
    params: dict[str, Any] | None = None


def _segment(value: str) -> str:
    return quote(value, safe="")


def _present(**fields: Any) -> dict[str, Any]:
    return {name: value for name, value in fields.items() if value is not None}


def _context(user_id: str, *, session_id: str | None, query: str | None, messages: Sequence[ContextMessage] | None,
             include: Include | None, limits: Limits | None, token_budget: int | None, as_of: datetime | None,
             knowledge_profile: str | None) -> _Call[ContextResult]:
    body = _present(user_id=user_id, session_id=session_id, query=query,
                    messages=list(messages) if messages is not None else None, include=include, limits=limits,
                    token_budget=token_budget, as_of=as_of.isoformat() if as_of else None,
                    knowledge_profile=knowledge_profile)
    return _Call("POST", "context", ContextResult.from_json, json=body)


def _append(session_id: str, user_id: str, messages: Sequence[MessageIn]) -> _Call[AppendResult]:
    return _Call("POST", f"conversations/{_segment(session_id)}/messages", AppendResult.from_json,
                 json={"user_id": user_id, "messages": list(messages)})


def _trace_start(user_id: str, session_id: str, task: str) -> _Call[TraceStarted]:
    return _Call("POST", "traces", lambda body: TraceStarted(**body),
                 json={"user_id": user_id, "session_id": session_id, "task": task})


def _trace_step(trace_uid: str, user_id: str, *, thought: str | None, action: str | None, observation: str | None,
                tool_calls: Sequence[ToolCall] | None) -> _Call[TraceStep]:
    body = _present(user_id=user_id, thought=thought, action=action, observation=observation,
                    tool_calls=list(tool_calls) if tool_calls is not None else None)
    return _Call("POST", f"traces/{_segment(trace_uid)}/steps", lambda body: TraceStep(**body), json=body)


def _trace_complete(trace_uid: str, user_id: str, *, outcome: str, success: bool) -> _Call[None]:
    return _Call("POST", f"traces/{_segment(trace_uid)}/complete", lambda body: None,
                 json={"user_id": user_id, "outcome": outcome, "success": success})


def _items(user_id: str, kind: ItemKind) -> str:
    return f"users/{_segment(user_id)}/{_segment(kind)}/"


def _list(user_id: str, kind: ItemKind, *, cursor: str | None, limit: int | None,
          include_retracted: bool | None) -> _Call[ItemPage]:
    return _Call("GET", _items(user_id, kind), lambda body: ItemPage(items=body["items"], next=body["next"]),
                 params=_present(cursor=cursor, limit=limit, include_retracted=include_retracted))


def _get(user_id: str, kind: ItemKind, uid: str) -> _Call[dict[str, Any]]:
    return _Call("GET", _items(user_id, kind) + _segment(uid), lambda body: body)


def _delete(user_id: str, kind: ItemKind, uid: str) -> _Call[int]:
    return _Call("DELETE", _items(user_id, kind) + _segment(uid), lambda body: body["deleted"])


def _correction_create(user_id: str, kind: CorrectableKind, uid: str, value: CorrectionValue, *,
                       reason: str | None) -> _Call[Correction]:
    fields = {name: v.isoformat() if isinstance(v, date) else v for name, v in value.items()}
    return _Call("POST", _items(user_id, kind) + _segment(uid) + "/corrections", lambda body: Correction(**body),
                 json={**fields, **_present(reason=reason)})


def _headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "User-Agent": f"memory-portal-client/{__version__}"}


def _api_root(base_url: str) -> str:
    return base_url.rstrip("/") + "/api/v1/"


def _result(call: _Call[T], response: httpx2.Response) -> T:
    if response.is_error:
        raise error_from_response(response)
    try:
        return call.parse(response.json())
    except (ValueError, KeyError, TypeError) as exc:
        raise MemoryPortalError(f"Unexpected response to {call.method} {call.path}: {exc}",
                                status=response.status_code) from exc


class MemoryPortalClient:
    """Call the portal's agent API with an agent's bearer token.

    Every method raises a `MemoryPortalError` subclass when the portal refuses or cannot be reached.
    Use it as a context manager, or call `close()`, to release its connections.
    """

    def __init__(self, base_url: str, token: str, *, timeout: float = 10.0):
        self._http = httpx2.Client(base_url=_api_root(base_url), headers=_headers(token), timeout=timeout)

    def __enter__(self) -> "MemoryPortalClient":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _send(self, call: _Call[T]) -> T:
        try:
            response = self._http.request(call.method, call.path, json=call.json, params=call.params)
        except httpx2.TransportError as exc:
            raise PortalUnreachable(f"{call.method} {call.path}: {exc}") from exc
        return _result(call, response)

    def context(self, user_id: str, *, session_id: str | None = None, query: str | None = None,
                messages: Sequence[ContextMessage] | None = None, include: Include | None = None,
                limits: Limits | None = None, token_budget: int | None = None, as_of: datetime | None = None,
                knowledge_profile: str | None = None) -> ContextResult:
        """Return the memory to inject before the model runs, recalled from `query` or the recent `messages`."""
        return self._send(_context(user_id, session_id=session_id, query=query, messages=messages, include=include,
                                   limits=limits, token_budget=token_budget, as_of=as_of,
                                   knowledge_profile=knowledge_profile))

    def append_messages(self, session_id: str, user_id: str, messages: Sequence[MessageIn]) -> AppendResult:
        """Append a turn's messages in order; a message whose `client_message_id` is stored already is skipped."""
        return self._send(_append(session_id, user_id, messages))

    def start_trace(self, user_id: str, session_id: str, task: str) -> TraceStarted:
        return self._send(_trace_start(user_id, session_id, task))

    def add_trace_step(self, trace_uid: str, user_id: str, *, thought: str | None = None, action: str | None = None,
                       observation: str | None = None, tool_calls: Sequence[ToolCall] | None = None) -> TraceStep:
        return self._send(_trace_step(trace_uid, user_id, thought=thought, action=action, observation=observation,
                                      tool_calls=tool_calls))

    def complete_trace(self, trace_uid: str, user_id: str, *, outcome: str, success: bool) -> None:
        self._send(_trace_complete(trace_uid, user_id, outcome=outcome, success=success))

    def list_items(self, user_id: str, kind: ItemKind, *, cursor: str | None = None, limit: int | None = None,
                   include_retracted: bool | None = None) -> ItemPage:
        """Return a page of items, newest first; retracted versions of facts and preferences only if asked."""
        return self._send(_list(user_id, kind, cursor=cursor, limit=limit, include_retracted=include_retracted))

    def iter_items(self, user_id: str, kind: ItemKind, *, page_size: int | None = None,
                   include_retracted: bool | None = None) -> Iterator[dict[str, Any]]:
        """Yield every item of a kind, newest first, fetching page after page."""
        cursor = None
        while True:
            page = self.list_items(user_id, kind, cursor=cursor, limit=page_size, include_retracted=include_retracted)
            yield from page.items
            if page.next is None:
                return
            cursor = page.next

    def get_item(self, user_id: str, kind: ItemKind, uid: str) -> dict[str, Any]:
        return self._send(_get(user_id, kind, uid))

    def delete_item(self, user_id: str, kind: ItemKind, uid: str) -> int:
        """Forget one item with what was derived only from it; return how many nodes were deleted."""
        return self._send(_delete(user_id, kind, uid))

    def create_correction(self, user_id: str, kind: CorrectableKind, uid: str, value: CorrectionValue, *,
                          reason: str | None = None) -> Correction:
        """Propose a correction of a fact, preference or entity (scope `memory:correct`); it applies at once
        when the person lets this agent correct directly, else it waits for them or a reviewer."""
        return self._send(_correction_create(user_id, kind, uid, value, reason=reason))


class AsyncMemoryPortalClient:
    """The asyncio twin of `MemoryPortalClient`: the same methods, awaited."""

    def __init__(self, base_url: str, token: str, *, timeout: float = 10.0):
        self._http = httpx2.AsyncClient(base_url=_api_root(base_url), headers=_headers(token), timeout=timeout)

    async def __aenter__(self) -> "AsyncMemoryPortalClient":
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _send(self, call: _Call[T]) -> T:
        try:
            response = await self._http.request(call.method, call.path, json=call.json, params=call.params)
        except httpx2.TransportError as exc:
            raise PortalUnreachable(f"{call.method} {call.path}: {exc}") from exc
        return _result(call, response)

    async def context(self, user_id: str, *, session_id: str | None = None, query: str | None = None,
                      messages: Sequence[ContextMessage] | None = None, include: Include | None = None,
                      limits: Limits | None = None, token_budget: int | None = None, as_of: datetime | None = None,
                      knowledge_profile: str | None = None) -> ContextResult:
        """Return the memory to inject before the model runs, recalled from `query` or the recent `messages`."""
        return await self._send(_context(user_id, session_id=session_id, query=query, messages=messages,
                                         include=include, limits=limits, token_budget=token_budget, as_of=as_of,
                                         knowledge_profile=knowledge_profile))

    async def append_messages(self, session_id: str, user_id: str, messages: Sequence[MessageIn]) -> AppendResult:
        """Append a turn's messages in order; a message whose `client_message_id` is stored already is skipped."""
        return await self._send(_append(session_id, user_id, messages))

    async def start_trace(self, user_id: str, session_id: str, task: str) -> TraceStarted:
        return await self._send(_trace_start(user_id, session_id, task))

    async def add_trace_step(self, trace_uid: str, user_id: str, *, thought: str | None = None,
                             action: str | None = None, observation: str | None = None,
                             tool_calls: Sequence[ToolCall] | None = None) -> TraceStep:
        return await self._send(_trace_step(trace_uid, user_id, thought=thought, action=action,
                                            observation=observation, tool_calls=tool_calls))

    async def complete_trace(self, trace_uid: str, user_id: str, *, outcome: str, success: bool) -> None:
        await self._send(_trace_complete(trace_uid, user_id, outcome=outcome, success=success))

    async def list_items(self, user_id: str, kind: ItemKind, *, cursor: str | None = None,
                         limit: int | None = None, include_retracted: bool | None = None) -> ItemPage:
        """Return a page of items, newest first; retracted versions of facts and preferences only if asked."""
        return await self._send(_list(user_id, kind, cursor=cursor, limit=limit,
                                      include_retracted=include_retracted))

    async def iter_items(self, user_id: str, kind: ItemKind, *, page_size: int | None = None,
                         include_retracted: bool | None = None) -> AsyncIterator[dict[str, Any]]:
        """Yield every item of a kind, newest first, fetching page after page."""
        cursor = None
        while True:
            page = await self.list_items(user_id, kind, cursor=cursor, limit=page_size,
                                         include_retracted=include_retracted)
            for item in page.items:
                yield item
            if page.next is None:
                return
            cursor = page.next

    async def get_item(self, user_id: str, kind: ItemKind, uid: str) -> dict[str, Any]:
        return await self._send(_get(user_id, kind, uid))

    async def delete_item(self, user_id: str, kind: ItemKind, uid: str) -> int:
        """Forget one item with what was derived only from it; return how many nodes were deleted."""
        return await self._send(_delete(user_id, kind, uid))

    async def create_correction(self, user_id: str, kind: CorrectableKind, uid: str, value: CorrectionValue, *,
                                reason: str | None = None) -> Correction:
        """Propose a correction of a fact, preference or entity (scope `memory:correct`); it applies at once
        when the person lets this agent correct directly, else it waits for them or a reviewer."""
        return await self._send(_correction_create(user_id, kind, uid, value, reason=reason))
