"""A small OpenAI-compatible HTTP server for tests: the real SDK talks to it over loopback.

It serves /v1/chat/completions (answers that follow the request's JSON schema, built from the
message it was sent; offered tools, a scripted agent's tool calls and replies; else a chat reply that
repeats the last message) and /v1/embeddings (deterministic unit vectors), and records every request.
"""

import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jsonschema
import numpy as np

NAME = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)+\b")
ORGANIZATION_WORDS = ("Labs", "Inc", "Ltd", "Corp", "Trust", "Union", "Systems")


def extraction_answer(message: str) -> dict:
    """Return an extraction of `message`: capitalised names, and EMPLOYED_BY from a person to an organisation.

    Like a careless model, it ignores negation, so the extractor's own guard is what a test sees.
    """
    names = list(dict.fromkeys(NAME.findall(message)))
    entities = [
        {"name": n, "type": "ORGANIZATION" if n.endswith(ORGANIZATION_WORDS) else "PERSON", "aliases": [], "mentions": [n]}
        for n in names
    ]
    people = [e["name"] for e in entities if e["type"] == "PERSON"]
    organisations = [e["name"] for e in entities if e["type"] == "ORGANIZATION"]
    relations, facts = [], []
    if people and organisations and " join" in message:
        relations.append({"source": people[0], "type": "EMPLOYED_BY", "target": organisations[0], "confidence": 0.9})
        year = re.search(r"\b(19|20)\d{2}\b", message)
        facts.append({"subject": people[0], "predicate": "EMPLOYED_BY", "object": organisations[0],
                      "valid_from": f"{year.group()}-01-01" if year else None})
    preferences = [{"category": "food", "preference": m.group(1), "topic": m.group(1), "polarity": "positive"}
                   for m in re.finditer(r"I prefer ([^.]+)", message)]
    return {"entities": entities, "relations": relations, "facts": facts, "preferences": preferences}


def _text(content) -> str:
    if isinstance(content, list):
        return " ".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


def memory_agent_turn(messages: list[dict]) -> dict:
    """Play an agent that keeps its memory through the memory tools: a request to remember something is
    appended (message_append), anything else is first looked up (context_build); given a tool's answer, it
    replies with what the memory recalled."""
    last = messages[-1]
    if last["role"] == "tool":
        answer = json.loads(_text(last["content"]))
        recalled = [line[2:] for line in answer.get("context", "").splitlines() if line.startswith("- ")]
        return {"role": "assistant", "content": "From memory: " + " | ".join(recalled) if recalled else "Noted."}
    text = _text(last["content"])
    name, arguments = (("message_append", {"session_id": "agent-chat", "messages": [{"role": "user", "content": text}]})
                       if text.lower().startswith("remember") else ("context_build", {"query": text}))
    return {"role": "assistant", "content": None, "tool_calls": [{
        "id": f"call_{len(messages)}", "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)}}]}


def _completion(body: dict, message: dict) -> dict:
    return {"id": "chatcmpl-stub", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                         "message": message}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


class OpenAIStub:
    def __init__(self):
        self.requests: list[dict] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append({"path": self.path, "body": body, "authorization": self.headers.get("Authorization")})
                if self.path.endswith("/chat/completions"):
                    self._send(stub.chat(body))
                elif self.path.endswith("/embeddings"):
                    self._send(stub.embeddings(body))
                else:
                    self._send({"error": {"message": f"no route {self.path}"}}, status=404)

            def _send(self, payload, status=200):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def chat(self, body: dict) -> dict:
        if body.get("tools") and "response_format" not in body:
            return _completion(body, memory_agent_turn(body["messages"]))
        last = body["messages"][-1]["content"]
        last = last if isinstance(last, str) else " ".join(part.get("text", "") for part in last)
        if "response_format" in body:
            answer = extraction_answer(last.split("Message:\n", 1)[-1])
            jsonschema.validate(answer, body["response_format"]["json_schema"]["schema"])
            content = json.dumps(answer)
        else:
            content = f"You asked: {last}"
        return {
            "id": "chatcmpl-stub", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def embeddings(self, body: dict) -> dict:
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        dimensions = body.get("dimensions") or 8
        data = []
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
            vector = np.random.default_rng(seed).normal(size=dimensions)
            data.append({"object": "embedding", "index": i, "embedding": (vector / np.linalg.norm(vector)).tolist()})
        return {"object": "list", "data": data, "model": body["model"], "usage": {"prompt_tokens": 1, "total_tokens": 1}}

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
