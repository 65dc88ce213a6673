"""Hostile bodies and unknown routes get the API's one error shape, never a 500 or an HTML page."""

import json

import pytest

from portal.parsers import MAX_DEPTH

ENDPOINTS = ["/api/v1/context", "/api/v1/conversations/s1/messages", "/api/v1/traces",
             "/api/v1/knowledge/search"]


def post_raw(client, url, body: str):
    return client.generic("POST", url, body.encode("utf-8"), content_type="application/json")


def assert_error_shape(response, status):
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"message", "extra"} and body["message"]
    return body


@pytest.mark.parametrize("url", ENDPOINTS)
def test_a_body_nested_too_deep_is_400_on_every_json_endpoint(granted, url):
    _, _, client = granted
    body = assert_error_shape(post_raw(client, url, "[" * 5000 + "]" * 5000), 400)
    assert f"nests deeper than {MAX_DEPTH} levels" in body["message"]


def test_nesting_up_to_the_limit_reaches_validation(granted):
    subject, _, client = granted
    arguments = {}
    for _ in range(MAX_DEPTH - 8):  # room for the fields around the tool call's arguments
        arguments = {"a": arguments}
    response = client.post("/api/v1/traces", {"user_id": subject.user_id, "session_id": "s1", "task": "t",
                                              "nested": arguments}, format="json")
    body = assert_error_shape(response, 400)
    assert "nested" in json.dumps(body["extra"])  # refused by the serializer as an unknown field, by name


@pytest.mark.parametrize("field", ["role", "content"])
def test_a_lone_surrogate_is_400_naming_where_it_is(granted, field):
    subject, _, client = granted
    message = {"role": "user", "content": "hello", field: "\ud800"}
    raw = json.dumps({"messages": [message], "user_id": subject.user_id})  # ensure_ascii writes \\ud800
    body = assert_error_shape(post_raw(client, "/api/v1/conversations/s1/messages", raw), 400)
    assert f"messages[0].{field}" in body["message"] and "surrogate" in body["message"]


def test_a_lone_surrogate_in_a_field_name_is_400(granted):
    _, _, client = granted
    body = assert_error_shape(post_raw(client, "/api/v1/context", '{"\\udc00": 1}'), 400)
    assert "field name" in body["message"]


def test_undecodable_bytes_are_400(granted):
    _, _, client = granted
    response = client.generic("POST", "/api/v1/context", b'{"query": "\xff\xfe"}', content_type="application/json")
    assert_error_shape(response, 400)


@pytest.mark.parametrize("path", ["/api/v1/nothing-here", "/api/v1/users/x/unknown-kind/", "/api/v2/context",
                                  "/api/"])
def test_unmatched_routes_under_api_are_json_404(granted, path):
    _, _, client = granted
    body = assert_error_shape(client.get(path), 404)
    assert body["extra"] == {"path": path}


def test_a_wrong_method_is_json_405(granted):
    _, _, client = granted
    assert_error_shape(client.get("/api/v1/context"), 405)
