"""The Python client against the live portal over HTTP: every endpoint, its typed results and its errors."""

import asyncio
from datetime import date

import pytest
from memory_portal import (
    AccessDenied, AsyncMemoryPortalClient, AuthenticationFailed, Conflict, ContextItem, Correction, InvalidRequest,
    MemoryPortalClient, NotFound, PortalUnreachable, RateLimited,
)

from memory import ingest
from memory.models import Grant


@pytest.fixture
def client(portal):
    with MemoryPortalClient(portal.base_url, portal.token, timeout=30) as client:
        yield client


def test_append_is_idempotent_and_context_recalls_it(client, portal):
    turn = [
        {"role": "user", "content": "I keep my bicycle in the blue shed.", "client_message_id": "m-1"},
        {"role": "assistant", "content": "Noted: the blue shed.", "client_message_id": "m-2"},
    ]
    first = client.append_messages("s-1", portal.user_id, turn)
    assert (first.session_id, first.stored) == ("s-1", 2)
    assert [(r.client_message_id, r.stored, r.seq) for r in first.results] == [("m-1", True, 1), ("m-2", True, 2)]

    again = client.append_messages("s-1", portal.user_id, turn)
    assert again.stored == 0
    assert [(r.reason, r.uid) for r in again.results] == [("duplicate", r.uid) for r in first.results]

    result = client.context(portal.user_id, session_id="s-2", query="Where is my bicycle?", token_budget=500)
    assert "blue shed" in result.context
    assert first.results[0].uid in {item.id for item in result.items}
    assert all(isinstance(item, ContextItem) for item in result.items)
    assert set(result.categories) == {"history", "long_term", "reasoning"}


def test_items_iterate_by_cursor_then_get_and_delete(client, portal):
    contents = [f"Note number {n}" for n in range(3)]
    client.append_messages("s-1", portal.user_id, [{"role": "user", "content": c} for c in contents])

    page = client.list_items(portal.user_id, "messages", limit=2)
    assert len(page.items) == 2 and page.next is not None
    listed = list(client.iter_items(portal.user_id, "messages", page_size=1))
    assert sorted(item["content"] for item in listed) == contents

    one = listed[0]
    assert client.get_item(portal.user_id, "messages", one["uid"]) == one
    assert client.delete_item(portal.user_id, "messages", one["uid"]) >= 1
    with pytest.raises(NotFound) as missing:
        client.get_item(portal.user_id, "messages", one["uid"])
    assert missing.value.status == 404 and missing.value.message == "No message with that id."


def test_trace_start_step_complete(client, portal):
    started = client.start_trace(portal.user_id, "s-1", "Book a table for two")
    assert started.stored and started.uid
    call = {"tool_name": "search", "arguments": {"q": "tables"}, "status": "success"}
    step = client.add_trace_step(started.uid, portal.user_id, thought="Find a restaurant", action="search",
                                 tool_calls=[call])
    assert step.order == 1 and len(step.tool_call_uids) == 1
    client.complete_trace(started.uid, portal.user_id, outcome="Booked at eight", success=True)

    [trace] = client.iter_items(portal.user_id, "traces")
    assert (trace["uid"], trace["outcome"], trace["success"]) == (started.uid, "Booked at eight", True)
    with pytest.raises(NotFound):
        client.complete_trace(started.uid, portal.user_id, outcome="again", success=False)


def test_errors_carry_status_message_and_extra(client, portal, make_portal):
    with pytest.raises(InvalidRequest) as invalid:
        client.append_messages("s-1", portal.user_id, [{"role": "robot", "content": "beep"}])
    assert invalid.value.status == 400
    assert invalid.value.extra["fields"]["messages"]["0"]["role"] == ['"robot" is not a valid choice.']

    stranger = make_portal()
    with pytest.raises(AccessDenied) as denied:
        client.context(stranger.user_id, query="anything")
    assert denied.value.status == 403 and denied.value.extra == {"user_id": stranger.user_id}

    with MemoryPortalClient(portal.base_url, portal.token + "x") as forged, pytest.raises(AuthenticationFailed):
        forged.context(portal.user_id, query="anything")

    with MemoryPortalClient("http://127.0.0.1:1", portal.token) as nowhere, pytest.raises(PortalUnreachable) as down:
        nowhere.context(portal.user_id, query="anything")
    assert down.value.status is None


def test_corrections_are_proposed_or_applied_and_retracted_versions_listed_on_request(client, portal, make_portal):
    said = client.append_messages("s-1", portal.user_id, [{
        "role": "user", "content": "I live in Paris.",
        "facts": [{"subject": "Dana", "predicate": "LIVES_IN", "object": "Paris", "cardinality": "single"}]}])
    assert ingest.message_extract(message_uid=said.results[0].uid, user_id=portal.user_id) == "done"  # the worker
    [paris] = client.list_items(portal.user_id, "facts").items

    proposed = client.create_correction(portal.user_id, "facts", paris["uid"], {"object": "Lyon"},
                                        reason="She said Lyon.")
    assert isinstance(proposed, Correction)
    assert (proposed.status, proposed.kind, proposed.target_uid, proposed.version_uid) == (
        "proposed", "facts", paris["uid"], "")
    assert [fact["object"] for fact in client.iter_items(portal.user_id, "facts")] == ["Paris"]

    Grant.objects.filter(subject__user_id=portal.user_id).update(may_correct=True)
    applied = client.create_correction(portal.user_id, "facts", paris["uid"], {"valid_from": date(2024, 5, 1),
                                                                               "object": "Lyon"})
    assert applied.status == "applied" and applied.version_uid not in ("", paris["uid"])
    [lyon] = client.iter_items(portal.user_id, "facts")
    assert (lyon["uid"], lyon["object"], lyon["valid_from"][:10]) == (applied.version_uid, "Lyon", "2024-05-01")
    history = {f["uid"]: f["status"] for f in client.iter_items(portal.user_id, "facts", page_size=1,
                                                                include_retracted=True)}
    assert history == {applied.version_uid: "current", paris["uid"]: "retracted"}

    with pytest.raises(Conflict) as retracted:
        client.create_correction(portal.user_id, "facts", paris["uid"], {"object": "Nice"})
    assert retracted.value.status == 409 and retracted.value.extra == {"status": "retracted"}
    with pytest.raises(InvalidRequest) as invalid:
        client.create_correction(portal.user_id, "facts", lyon["uid"], {"object": ""})
    assert invalid.value.extra["fields"] == {"object": ["This field may not be blank."]}
    with pytest.raises(NotFound):
        client.create_correction(portal.user_id, "facts", "no-such-fact", {"object": "Nice"})
    stranger = make_portal()
    with pytest.raises(AccessDenied):
        client.create_correction(stranger.user_id, "facts", paris["uid"], {"object": "Nice"})


def test_rate_limit_exposes_retry_after(make_portal):
    portal = make_portal(rate_limit_per_minute=1)
    # Two calls may straddle a minute boundary; three cannot all pass a limit of one a minute.
    with MemoryPortalClient(portal.base_url, portal.token) as client, pytest.raises(RateLimited) as limited:
        for _ in range(3):
            client.context(portal.user_id, query="anything")
    assert limited.value.status == 429 and 1 <= limited.value.retry_after <= 60


def test_async_client_covers_the_same_calls(portal):
    async def scenario():
        async with AsyncMemoryPortalClient(portal.base_url, portal.token, timeout=30) as client:
            appended = await client.append_messages("s-1", portal.user_id, [
                {"role": "user", "content": "My dentist is Dr Okafor."}, {"role": "assistant", "content": "Got it."}])
            listed = [item async for item in client.iter_items(portal.user_id, "messages", page_size=1)]
            context = await client.context(portal.user_id, query="Who is my dentist?")
            with pytest.raises(NotFound):
                await client.get_item(portal.user_id, "facts", "no-such-fact")
            with pytest.raises(NotFound):
                await client.create_correction(portal.user_id, "preferences", "no-such-preference",
                                               {"preference": "likes tea"})
            assert (await client.list_items(portal.user_id, "facts", include_retracted=True)).items == []
            return appended, listed, context

    appended, listed, context = asyncio.run(scenario())
    assert appended.stored == 2
    assert sorted(item["content"] for item in listed) == ["Got it.", "My dentist is Dr Okafor."]
    assert "Dr Okafor" in context.context
