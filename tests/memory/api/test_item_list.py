"""The agent's item list: current versions by default, the retracted ones only when asked, one person's only."""

import pytest

from memory import ingest, services
from memory.models import Grant
from review import services as review_services

pytestmark = pytest.mark.django_db


def _seed(client, user_id: str, city: str, taste: str) -> None:
    """Append one message carrying a fact and a preference through the API, and extract it as the worker would."""
    appended = client.post("/api/v1/conversations/s1/messages", {"user_id": user_id, "messages": [
        {"role": "user", "content": f"I live in {city} and I like {taste}.",
         "facts": [{"subject": "Dana", "predicate": "LIVES_IN", "object": city, "cardinality": "single"}],
         "preferences": [{"category": "music", "preference": f"likes {taste}"}]}]}, format="json")
    assert appended.status_code == 201, appended.content
    uid = appended.json()["results"][0]["uid"]
    assert ingest.message_extract(message_uid=uid, user_id=user_id) == "done"


def _page(client, user_id: str, kind: str, **params) -> dict:
    response = client.get(f"/api/v1/users/{user_id}/{kind}/", params)
    assert response.status_code == 200, response.content
    return response.json()


def _correct(client, user_id: str, kind: str, uid: str, **value) -> str:
    response = client.post(f"/api/v1/users/{user_id}/{kind}/{uid}/corrections", value, format="json")
    assert response.status_code == 201, response.content  # applied at once: the person allows this agent
    return response.json()["version_uid"]


@pytest.fixture
def corrected(granted, make_subject):
    """Dana said Paris and jazz, the agent corrected both; Bob, granted the same agent, said and corrected his own."""
    dana, agent, client = granted
    bob = make_subject()
    services.grant_create(subject=bob, agent=agent)
    Grant.objects.filter(agent=agent).update(may_correct=True)
    versions = {}
    for person, (city, taste, new_city, new_taste) in ((dana, ("Paris", "jazz", "Lyon", "likes blues")),
                                                       (bob, ("Oslo", "opera", "Bergen", "likes fado"))):
        _seed(client, person.user_id, city, taste)
        [fact] = _page(client, person.user_id, "facts")["items"]
        [preference] = _page(client, person.user_id, "preferences")["items"]
        versions[person.user_id] = {
            "facts": (fact["uid"], _correct(client, person.user_id, "facts", fact["uid"], object=new_city)),
            "preferences": (preference["uid"], _correct(client, person.user_id, "preferences", preference["uid"],
                                                        preference=new_taste)),
        }
    return {"dana": dana, "bob": bob, "client": client, "versions": versions}


@pytest.mark.parametrize("kind, field, wrong, right", [
    ("facts", "object", "Paris", "Lyon"), ("preferences", "preference", "likes jazz", "likes blues")])
def test_retracted_versions_are_listed_only_when_asked_and_only_the_persons_own(corrected, kind, field, wrong, right):
    client, dana, bob = corrected["client"], corrected["dana"], corrected["bob"]
    retracted, current = corrected["versions"][dana.user_id][kind]

    page = _page(client, dana.user_id, kind)
    assert [(item["uid"], item[field], item["status"]) for item in page["items"]] == [(current, right, "current")]
    assert page["next"] is None
    assert _page(client, dana.user_id, kind, include_retracted="false") == page

    history = _page(client, dana.user_id, kind, include_retracted="true")
    assert {(item["uid"], item[field], item["status"]) for item in history["items"]} == {
        (current, right, "current"), (retracted, wrong, "retracted")}
    # The filter is applied before the page is cut, so the cursor walks current versions only.
    assert _page(client, dana.user_id, kind, limit=1)["next"] is None
    first = _page(client, dana.user_id, kind, limit=1, include_retracted="true")
    rest = _page(client, dana.user_id, kind, limit=1, include_retracted="true", cursor=first["next"])
    assert {item["uid"] for item in first["items"] + rest["items"]} == {current, retracted} and rest["next"] is None

    bobs = set(corrected["versions"][bob.user_id][kind])
    assert not bobs & {item["uid"] for item in history["items"]}
    assert {item["uid"] for item in _page(client, bob.user_id, kind, include_retracted="true")["items"]} == bobs


def test_a_bad_include_retracted_gets_the_one_error_shape(corrected):
    client, dana = corrected["client"], corrected["dana"]
    response = client.get(f"/api/v1/users/{dana.user_id}/facts/", {"include_retracted": "sometimes"})
    assert response.status_code == 400
    assert response.json() == {"message": "Invalid input; see extra.fields.",
                               "extra": {"fields": {"include_retracted": ["Must be a valid boolean."]}}}



def test_the_fact_a_reviewers_revert_retracted_is_listed_only_when_asked(granted):
    dana, _, client = granted
    _seed(client, dana.user_id, "Paris", "jazz")
    moved = client.post("/api/v1/conversations/s1/messages", {"user_id": dana.user_id, "messages": [
        {"role": "user", "content": "I moved to Berlin.",
         "facts": [{"subject": "Dana", "predicate": "LIVES_IN", "object": "Berlin", "cardinality": "single"}]}]},
        format="json").json()["results"][0]["uid"]
    assert ingest.message_extract(message_uid=moved, user_id=dana.user_id) == "done"
    facts = {f["object"]: f for f in _page(client, dana.user_id, "facts")["items"]}
    assert (facts["Paris"]["status"], facts["Berlin"]["status"]) == ("superseded", "current")

    review_services.fact_revert(user_id=dana.user_id, fact_uid=facts["Paris"]["uid"], actor="reviewer@example.com")
    assert [(f["object"], f["status"]) for f in _page(client, dana.user_id, "facts")["items"]] == [
        ("Paris", "current")]
    history = _page(client, dana.user_id, "facts", include_retracted="true")["items"]
    assert {(f["object"], f["status"]) for f in history} == {("Paris", "current"), ("Berlin", "retracted")}
