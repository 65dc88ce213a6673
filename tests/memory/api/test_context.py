"""before_run: relevant memory within a token budget, consent-filtered, attributed, exact per tenant."""

from datetime import datetime, timedelta, timezone

import pytest
from neomodel import db

from memory import ingest, selectors, services
from memory.context import CONTEXT_BEGIN, CONTEXT_END
from memory.embeddings import get_embedder
from memory.models import MemoryAccess
from portal import graphdb
from portal.tokens import count_tokens

pytestmark = pytest.mark.django_db


def _context(client, user_id, **body):
    response = client.post("/api/v1/context", {"user_id": user_id, **body}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def _append(client, user_id, session, *contents):
    client.post(f"/api/v1/conversations/{session}/messages", {"user_id": user_id, "messages": [
        {"role": "user", "content": c} for c in contents]}, format="json")


def _state(client, user_id, session, content, fact, *, said_at=None):
    """Append a message carrying one fact (said at `said_at`, default now) and extract it as the worker would."""
    message = {"role": "user", "content": content, "facts": [fact]}
    if said_at:
        message["created_at"] = said_at.isoformat()
    response = client.post(f"/api/v1/conversations/{session}/messages", {"user_id": user_id, "messages": [message]},
                           format="json")
    uid = response.json()["results"][0]["uid"]
    assert ingest.message_extract(message_uid=uid, user_id=user_id) == "done"


def test_session_two_recalls_what_session_one_said(granted):
    subject, _, client = granted
    _append(client, subject.user_id, "monday", "My favourite launch colour is teal.", "I keep bees on the roof.")
    body = _context(client, subject.user_id, session_id="tuesday", query="Which colour should the launch use?")
    assert "teal" in body["context"]
    recalled = [i for i in body["items"] if i["type"] == "message"]
    assert recalled[0]["provenance"]["session_id"] == "monday" and "teal" in recalled[0]["text"]


def test_recent_turns_of_the_session_come_in_order(granted):
    subject, _, client = granted
    _append(client, subject.user_id, "s1", "first", "second", "third")
    body = _context(client, subject.user_id, session_id="s1", limits={"history": 2, "messages": 0})
    assert body["context"].splitlines() == [CONTEXT_BEGIN, "Conversation so far:", "- user: second", "- user: third",
                                            CONTEXT_END]


def test_query_text_comes_from_recent_user_and_assistant_messages(granted):
    subject, _, client = granted
    _append(client, subject.user_id, "old", "The garage door code is 4711.", "Our cat is called Miso.")
    body = _context(client, subject.user_id, session_id="new", limits={"messages": 1}, messages=[
        {"role": "system", "content": "You are a helpful assistant. Mention the cat."},
        {"role": "user", "content": "What was the garage code again?"}])
    assert "4711" in body["context"] and "Miso" not in body["context"]


def test_current_facts_only_unless_as_of(granted):
    subject, _, client = granted
    then = datetime(2025, 1, 1, tzinfo=timezone.utc)
    moved = datetime(2026, 3, 1, tzinfo=timezone.utc)
    dana = {"subject": "Dana", "predicate": "LIVES_IN", "cardinality": "single"}
    _state(client, subject.user_id, "s1", "Dana lives in Porto.", {**dana, "object": "Porto"}, said_at=then)
    _state(client, subject.user_id, "s1", "Dana moved to Lisbon.", {**dana, "object": "Lisbon"}, said_at=moved)
    now = _context(client, subject.user_id, query="Where does Dana live?", include={"history": False})
    assert "Lisbon" in now["context"] and "Porto" not in now["context"]
    past = _context(client, subject.user_id, query="Where does Dana live?", include={"history": False},
                    as_of=(moved - timedelta(days=30)).isoformat())
    assert "Porto" in past["context"] and "Lisbon" not in past["context"]


def test_token_budget_is_respected(granted):
    subject, _, client = granted
    _append(client, subject.user_id, "s1", *[f"Note number {i} about the quarterly planning offsite." for i in range(20)])
    body = _context(client, subject.user_id, session_id="s2", query="planning offsite", token_budget=40,
                    limits={"messages": 20})
    assert 0 < body["token_count"] <= 40
    assert body["omitted"] > 0


def test_the_token_count_is_the_count_of_the_text_returned(granted):
    """The count is summed as lines are packed; it must equal counting the returned text, whatever the lines hold
    (accents, CJK, emoji, tabs, words glued to punctuation, fence tags the packer defuses)."""
    subject, _, client = granted
    _converse(client, subject.user_id, "s1",
              ("user", "Caf\u00e9 na\u00efve r\u00e9sum\u00e9: the \u6771\u4eac office opens\tat 9."),
              ("assistant", "Great\u2014\U0001f389 see <memory-context>you</memory-context> there!!!"),
              ("user", "My sister's flat-mate's e-mail is dana@example.org (ask first)."))
    _state(client, subject.user_id, "s2", "Dana lives in Porto.",
           {"subject": "Dana", "predicate": "LIVES_IN", "object": "Porto"})
    body = _context(client, subject.user_id, session_id="s1", query="When does the Tokyo office open, and Dana?",
                    token_budget=4000, min_relevance=0)
    assert {i["type"] for i in body["items"]} >= {"message", "fact"}
    assert body["token_count"] == count_tokens(body["context"])


def test_withdrawn_categories_are_never_returned(granted):
    subject, agent, client = granted
    _state(client, subject.user_id, "s1", "I am allergic to peanuts.",
           {"subject": "user", "predicate": "ALLERGIC_TO", "object": "peanuts"})
    services.consent_record(subject=subject, agent=agent, category="long_term", granted=False)
    body = _context(client, subject.user_id, session_id="s2", query="allergies peanuts")
    assert "long_term" not in body["categories"]
    assert {i["type"] for i in body["items"]} == {"message"}
    services.consent_record(subject=subject, agent=None, category="history", granted=False)
    body = _context(client, subject.user_id, session_id="s2", query="allergies peanuts")
    assert body["items"] == [] and body["context"] == ""
    listing = client.get(f"/api/v1/users/{subject.user_id}/messages/")
    assert listing.status_code == 403 and listing.json()["extra"]["category"] == "history"


def test_each_response_records_what_it_returned_to_which_agent(granted):
    subject, agent, client = granted
    _append(client, subject.user_id, "s1", "The boat is moored in Cascais.")
    body = _context(client, subject.user_id, session_id="s2", query="where is the boat?")
    assert not MemoryAccess.objects.exists()  # queued off the request; the worker's drain writes it
    assert services.access_queue_drain() == 1
    access = MemoryAccess.objects.get(subject=subject)
    assert access.agent == agent and access.session_id == "s2"
    assert [a["uid"] for a in access.items] == [i["id"] for i in body["items"]]
    assert "Cascais" not in str(access.items)  # attribution keeps ids, never content


def test_vector_recall_is_exact_per_tenant_despite_closer_strangers(make_subject, granted):
    """Other users' messages identical to the query must not crowd out the subject's own match."""
    subject, _, client = granted
    query = "Where did I park the car?"
    vector = get_embedder().embed([query])[0].tolist()
    # Hand-written: messages of 300 people with no account or grant, there only to crowd the vector index.
    db.cypher_query(
        "UNWIND range(1, 300) AS i CREATE (:Message {uid: randomUUID(), user_id: 'stranger-' + toString(i), "
        "role: 'user', content: $q, seq: 1, embedding: $v, created_at: datetime()})", {"q": query, "v": vector})
    _append(client, subject.user_id, "s1", "The car is on level 3 of the airport garage.")
    body = _context(client, subject.user_id, session_id="s2", query=query, limits={"messages": 1})
    assert "level 3" in body["context"]


def test_similar_reasoning_traces_are_offered(granted):
    subject, _, client = granted
    trace = client.post("/api/v1/traces", {"user_id": subject.user_id, "session_id": "s1",
                                           "task": "Book a train from Lisbon to Porto"}, format="json").json()["uid"]
    steps = [client.post(f"/api/v1/traces/{trace}/steps", {"user_id": subject.user_id, "action": "search_trains",
                                                           "tool_calls": [{"tool_name": "search_trains",
                                                                           "arguments": {"from": "LIS", "to": "OPO"}}]},
                         format="json"),
             client.post(f"/api/v1/traces/{trace}/steps", {"user_id": subject.user_id, "thought": "Take the 9:00"},
                         format="json")]
    assert [(s.status_code, s.json()["order"], len(s.json()["tool_call_uids"])) for s in steps] == [(201, 1, 1),
                                                                                                  (201, 2, 0)]
    client.post(f"/api/v1/traces/{trace}/complete", {"user_id": subject.user_id, "outcome": "Booked the 9:00 Alfa",
                                                     "success": True}, format="json")
    body = _context(client, subject.user_id, query="Get me train tickets to Porto", include={"history": False})
    traces = [i for i in body["items"] if i["type"] == "trace"]
    assert traces and "Booked the 9:00 Alfa" in traces[0]["text"] and "search_trains" in traces[0]["text"]


def _converse(client, user_id, session, *turns):
    """Append (role, content) turns, then run the worker's step on each (it embeds and extracts); return
    their uids in order."""
    response = client.post(f"/api/v1/conversations/{session}/messages", {"user_id": user_id, "messages": [
        {"role": role, "content": content} for role, content in turns]}, format="json")
    uids = [r["uid"] for r in response.json()["results"]]
    for uid in uids:
        ingest.message_extract(message_uid=uid, user_id=user_id)
    return uids


def test_every_kind_is_scored_on_one_scale_and_says_why(granted):
    """Meaning and words make one score for a message and a fact alike; the branches that found a message and
    what its score is made of stay in its provenance."""
    subject, _, client = granted
    weather = [f"Forecast for day {i}: showers, wind and a cold front from the north." for i in range(24)]
    uids = _converse(client, subject.user_id, "s1", *[("user", text) for text in weather],
                     ("user", "The locker code for the gym is Zanzibar."))
    _state(client, subject.user_id, "s2", "Noted down the gym.",
           {"subject": "user", "predicate": "GOES_TO", "object": "the Harbour gym"})
    body = _context(client, subject.user_id, session_id="s3", query="Is it windy at the gym, zanzibar?",
                    token_budget=4000, min_relevance=0, limits={"messages": 30})
    assert all(0 <= i["score"] <= 1 for i in body["items"])
    recalled = [i["score"] for i in body["items"] if i["provenance"].get("source") == "recall"]
    assert recalled == sorted(recalled, reverse=True)  # each section best first
    locker = next(i for i in body["items"] if i["id"] == uids[-1])
    assert "fulltext" in locker["provenance"]["ranks"] and locker["provenance"]["relevance"]["words"] > 0
    fact = next(i for i in body["items"] if i["type"] == "fact")
    why = fact["provenance"]["relevance"]
    assert why["words"] == pytest.approx(1 / 3, abs=1e-3)  # "gym" of windy, gym, zanzibar
    assert fact["score"] == pytest.approx((why["meaning"] + 0.5 * why["words"]) / 1.5, abs=1e-3)


def test_what_earns_no_tokens_is_left_out(granted):
    """A message that shares no meaning or word with the question stays out, whatever the budget."""
    subject, _, client = granted
    _converse(client, subject.user_id, "s1", ("user", "The plumber comes on Thursday at nine."),
              ("user", "My daughter's violin recital is in the town hall."))
    body = _context(client, subject.user_id, session_id="s2", query="When does the plumber come?", token_budget=4000)
    assert [i["text"] for i in body["items"] if i["type"] == "message"] == ["user: The plumber comes on Thursday at nine."]
    assert "violin" not in body["context"]
    everything = _context(client, subject.user_id, session_id="s2", query="When does the plumber come?",
                          token_budget=4000, min_relevance=0)
    assert len([i for i in everything["items"] if i["type"] == "message"]) == 2


def test_a_recalled_message_brings_the_turn_that_answers_it(granted):
    """The answer shares no word with the question; the turn before it does."""
    subject, _, client = granted
    for n, text in enumerate(["The orthodontist moved our appointment to June.", "Our family doctor retired.",
                              "The pediatrician said the twins are healthy."]):
        _converse(client, subject.user_id, f"other-{n}", ("user", text))
    uids = _converse(client, subject.user_id, "s1", ("assistant", "Did you ever find a dentist for the kids?"),
                     ("user", "Yes! Dr. Okafor on Elm Street, they adore her."), ("assistant", "Good to know."))
    body = _context(client, subject.user_id, session_id="s2", query="Which dentist do the kids see?",
                    limits={"messages": 2})
    recalled = {i["id"]: i for i in body["items"] if i["type"] == "message"}
    assert set(recalled) == {uids[0], uids[1]}
    assert uids[0] in recalled[uids[1]]["provenance"]["next_to"]


def test_names_the_conversation_keeps_using_are_left_out_of_recall(granted):
    """The people talking are addressed by name all along; a name said once still counts."""
    subject, _, client = granted
    _converse(client, subject.user_id, "s1", *[("assistant", f"Wow Caroline, that is great news number {i}!")
                                               for i in range(6)],
              ("user", "I baked bread with my sister Clara."), ("user", "The oven is new."))
    assert selectors.query_focus(user_id=subject.user_id, text="What did Caroline bake with Clara?") == {
        "text": "What did bake with Clara ?", "speaker": "user"}
    assert selectors.query_focus(user_id=subject.user_id, text="what did caroline bake?") == {
        "text": "what did caroline bake?", "speaker": None}
    body = _context(client, subject.user_id, session_id="s2", query="What did Caroline bake?", limits={"messages": 1})
    assert "baked bread" in body["context"]


def test_i_is_no_name_however_often_it_is_said(granted):
    subject, _, client = granted
    _converse(client, subject.user_id, "s1", *[("user", f"I walked the dog for {i} miles today.") for i in range(6)],
              ("user", "I'm moving to Lisbon in May."))

    assert selectors.query_focus(user_id=subject.user_id, text="When did I say I'm moving?") == {
        "text": "When did I say I'm moving?", "speaker": None}


def test_an_appended_message_is_recalled_by_its_words_at_once_and_by_its_meaning_once_the_worker_embedded_it(granted):
    """The append stores no vector (the request never waits on the embedder); the worker's step sets it."""
    subject, _, client = granted
    response = client.post("/api/v1/conversations/s1/messages", {"user_id": subject.user_id, "messages": [
        {"role": "user", "content": "The spare house key is under the blue flowerpot."}]}, format="json")
    uid = response.json()["results"][0]["uid"]
    stored = "MATCH (m:Message {uid: $uid}) RETURN m.embedding IS NOT NULL"
    assert db.cypher_query(stored, {"uid": uid})[0][0][0] is False

    def recalled():
        body = _context(client, subject.user_id, session_id="s2", query="Where is the spare key?")
        return next(i for i in body["items"] if i["type"] == "message" and i["id"] == uid)["provenance"]["ranks"]

    assert recalled() == {"fulltext": 1}
    assert ingest.message_extract(message_uid=uid, user_id=subject.user_id) == "done"
    assert db.cypher_query(stored, {"uid": uid})[0][0][0] is True
    assert recalled() == {"fulltext": 1, "vector": 1}


def test_a_recalled_message_shows_its_own_date_unless_said_today(granted):
    subject, _, client = granted
    response = client.post("/api/v1/conversations/s1/messages", {"user_id": subject.user_id, "messages": [
        {"role": "user", "content": "Our anniversary dinner was at Tasca do Chico.",
         "created_at": "2023-05-08T13:56:00+00:00"}]}, format="json")
    ingest.message_extract(message_uid=response.json()["results"][0]["uid"], user_id=subject.user_id)
    _converse(client, subject.user_id, "s2", ("user", "Our anniversary is next week, at Tasca do Chico again."))
    body = _context(client, subject.user_id, session_id="s3", query="Where is the anniversary dinner?")
    texts = {i["text"] for i in body["items"] if i["type"] == "message"}
    assert texts == {"user, 8 May 2023: Our anniversary dinner was at Tasca do Chico.",
                     "user: Our anniversary is next week, at Tasca do Chico again."}
    assert "- user, 8 May 2023: Our anniversary dinner" in body["context"]


def test_a_turn_labelled_with_its_speaker_shows_the_speaker(granted):
    """Clients replaying a chat between people send "Name: text": the name says who, and is asked about."""
    subject, _, client = granted
    uids = _converse(client, subject.user_id, "s1", *[
        ("user" if n % 2 == 0 else "assistant", f"{name}: {text}") for n, (name, text) in enumerate([
            ("Caroline", "I went to a support group for trans people yesterday."),
            ("Melanie", "Wow Caroline, that sounds powerful! I went to a pottery class."),
            ("Caroline", "Pottery sounds fun, Melanie! What did you make?"),
            ("Melanie", "A bowl with a painted sunflower."),
            ("Caroline", "Lovely. I am thinking of adopting a dog."),
            ("Melanie", "Caroline, go for it!"),
            ("Caroline", "Thanks! The shelter opens on Monday."),
            ("Melanie", "My kids would love to meet the dog."),
            ("Caroline", "They can come along."),
            ("Melanie", "Deal, see you then!")])])
    body = _context(client, subject.user_id, session_id="s2", query="What did Melanie make in her class?",
                    limits={"messages": 2})
    recalled = {i["id"]: i for i in body["items"] if i["type"] == "message"}
    assert set(recalled) == {uids[1], uids[3]}  # what she said of the class, and her answer to "what did you make?"
    assert recalled[uids[3]]["text"] == "Melanie: A bowl with a painted sunflower."
    assert recalled[uids[3]]["provenance"]["speaker_asked"] is True and recalled[uids[3]]["provenance"]["next_to"]
    assert selectors.query_focus(user_id=subject.user_id, text="What did Melanie make?") == {
        "text": "What did make ?", "speaker": "Melanie"}


def test_the_time_a_question_names_leads_recall_to_what_was_said_then(granted):
    subject, _, client = granted
    for session, when, text in [("spring", "2023-05-06T10:00:00+00:00", "We hiked the coast trail near Sintra."),
                                ("summer", "2023-08-12T10:00:00+00:00", "Went up the Arrábida ridge, a hike.")]:
        response = client.post(f"/api/v1/conversations/{session}/messages", {"user_id": subject.user_id, "messages": [
            {"role": "user", "content": text, "created_at": when}]}, format="json")
        assert response.status_code == 201, response.content
        ingest.message_extract(message_uid=response.json()["results"][0]["uid"], user_id=subject.user_id)
    body = _context(client, subject.user_id, session_id="s2", query="Where did we hike in August 2023?",
                    limits={"messages": 1})
    item = next(i for i in body["items"] if i["type"] == "message")
    assert "Arrábida" in item["text"] and item["text"].startswith("user, 12 August 2023:")
    assert item["provenance"]["ranks"]["time"] == 1
    nothing_then = _context(client, subject.user_id, session_id="s2", query="Where did we hike in March 2021?",
                            limits={"messages": 2})
    assert all("time" not in i["provenance"]["ranks"] for i in nothing_then["items"] if i["type"] == "message")


def test_what_the_person_asked_about_said_comes_first(granted):
    """The assistant calls the person Caroline; asked about Caroline, her own turns lead."""
    subject, _, client = granted
    _converse(client, subject.user_id, "s1", *[("assistant", f"Wow Caroline, that is great news number {i}!")
                                               for i in range(6)])
    uids = _converse(client, subject.user_id, "s2", ("assistant", "I bake lemon cakes for my neighbours."),
                     ("user", "I make sourdough on Sundays."))
    body = _context(client, subject.user_id, session_id="s3", query="What did Caroline bake?", limits={"messages": 1})
    item = next(i for i in body["items"] if i["type"] == "message")
    assert item["id"] == uids[1] and item["provenance"]["speaker_asked"] is True


def test_a_word_and_a_colon_name_a_speaker_only_where_turns_are_labelled(granted):
    """"Booked: Monday 7:39" after an unlabelled turn is what the assistant said, not a speaker called Booked."""
    subject, _, client = granted
    _converse(client, subject.user_id, "trip", ("user", "Book me a train to Lisbon."),
              ("assistant", "Booked: Monday 7:39 to Lisbon."))
    _converse(client, subject.user_id, "chat", ("user", "Ann: Hi Bo!"), ("assistant", "Bo: Hi Ann, all set."))
    _converse(client, subject.user_id, "chat", ("user", "Ann: Thanks."))
    said = graphdb.rows("MATCH (c:Conversation)-[:HAS_MESSAGE]->(m:Message {user_id: $u}) "
                        "RETURN c.session_id AS session, m.speaker AS speaker ORDER BY session, m.seq",
                        {"u": subject.user_id})
    assert [(r["session"], r["speaker"]) for r in said] == [
        ("chat", "Ann"), ("chat", "Bo"), ("chat", "Ann"), ("trip", None), ("trip", None)]
