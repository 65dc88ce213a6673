"""The OpenAPI schema tells the truth: schemathesis, with all its checks and a fixed seed, against a live server."""

import os
import subprocess
import sys
from pathlib import Path

from drf_spectacular.generators import SchemaGenerator

from knowledge.graph import CHUNK_VECTOR_INDEX
from knowledge.models import RetrievalProfile
from memory import ingest, services
from memory.models import SCOPES

ROOT = Path(__file__).resolve().parents[2]
# Examples per operation and phase: enough to cross every documented bound, few enough for CI.
EXAMPLES = 4
SEED = 14


def test_schemathesis_finds_no_failure(transactional_db, live_server, make_subject, make_agent, api_for, tmp_path):
    subject = make_subject()
    agent, secret = make_agent(scopes=SCOPES, rate_limit_per_minute=1_000_000)
    services.grant_create(subject=subject, agent=agent)
    api = api_for(secret)
    said = api.post("/api/v1/conversations/s1/messages", {"user_id": subject.user_id, "messages": [
        {"role": "user", "content": "first"},
        {"role": "user", "content": "I live in Porto.", "facts": [
            {"subject": "user", "predicate": "RESIDES_AT", "object": "Porto"}]}]}, format="json").json()
    assert ingest.message_extract(message_uid=said["results"][1]["uid"], user_id=subject.user_id) == "done"
    cursor = api.get(f"/api/v1/users/{subject.user_id}/messages/", {"limit": 1}).json()["next"]
    fact = api.get(f"/api/v1/users/{subject.user_id}/facts/").json()["items"][0]["uid"]
    trace = api.post("/api/v1/traces", {"user_id": subject.user_id, "session_id": "s1", "task": "look"},
                     format="json").json()["uid"]
    profile = RetrievalProfile.objects.create(name="schema-profile", vector_index=CHUNK_VECTOR_INDEX)
    profile.agents.add(agent)
    config = tmp_path / "schemathesis.toml"
    # Every request is for the person who granted the agent access, and names their fact, their trace and a
    # profile the agent may use, so valid requests reach the memory graph; an opaque cursor is valid only as
    # a page handed it out. Which fields a correction needs depends on the kind in its path and on the stored
    # item (a fact's valid time must end after it starts, and not after today), which the schema cannot state:
    # there alone a 400 is allowed for a valid request.
    config.write_text(f'[parameters]\nuser_id = "{subject.user_id}"\n"body.user_id" = "{subject.user_id}"\n'
                      f'cursor = "{cursor}"\nuid = "{fact}"\ntrace_uid = "{trace}"\n'
                      f'"body.profile" = "{profile.name}"\n"body.knowledge_profile" = "{profile.name}"\n'
                      '[[operations]]\ninclude-path-regex = "/corrections$"\n'
                      'checks.positive_data_acceptance.expected-statuses = '
                      '["2xx", "400", "401", "403", "404", "409", "429", "5xx"]\n')
    run = subprocess.run(
        [sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "run",
         f"{live_server.url}/api/schema/", "--checks", "all", "--seed", str(SEED), "--max-examples", str(EXAMPLES),
         "--workers", "1", "--no-shrink", "--header", f"Authorization: Bearer {secret}",
         "--suppress-health-check", "all"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT / "tests" / "portal"), "SCHEMATHESIS_HOOKS": "schemathesis_hooks"},
    )
    assert run.returncode == 0, run.stdout[-25000:] + run.stderr[-3000:]
    print(run.stdout[-1200:])  # the summary: operations, phases, cases generated


def test_a_body_larger_than_the_limit_is_the_documented_413(granted):
    subject, _, client = granted
    content = "x" * 32_000
    body = {"user_id": subject.user_id, "messages": [{"role": "user", "content": content}] * 100}
    twice = {**body, "messages": body["messages"] * 2}  # 6.4 MB: over the 5 MiB limit before any field is read
    response = client.post("/api/v1/conversations/s1/messages", twice, format="json")
    assert response.status_code == 413 and response.json() == {
        "message": "The body is larger than 5 MiB; nothing was read or stored.", "extra": {}}
    assert client.get(f"/api/v1/users/{subject.user_id}/messages/").json()["items"] == []


def test_every_operation_documents_its_errors_with_the_one_body_and_refuses_unknown_fields():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    error = {"$ref": "#/components/schemas/Error"}
    operations = [(path, method, op) for path, ops in schema["paths"].items() for method, op in ops.items()]
    assert len(operations) >= 10
    for path, method, operation in operations:
        documented = operation["responses"]
        assert {"401", "403", "429", "503"} <= set(documented), (method, path)
        for code, response in documented.items():
            if code >= "400":
                assert response["content"]["application/json"]["schema"] == error, (method, path, code)
        if "requestBody" in operation:
            assert {"400", "413"} <= set(documented), (method, path)
            body = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
            assert schema["components"]["schemas"][body]["additionalProperties"] is False, (method, path)
    messages = schema["components"]["schemas"]["MessageAppendInput"]["properties"]["messages"]
    assert (messages["minItems"], messages["maxItems"]) == (1, 100)
    search = schema["components"]["schemas"]["KnowledgeSearchInput"]
    assert search["allOf"] == [{"not": {"required": ["query", "messages"]}}]
