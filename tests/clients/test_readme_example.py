"""The client's README runs as written: its Agent Framework program against the live portal, with the real
OpenAI chat client talking to the suite's local OpenAI-compatible server; and the package builds offline."""

import os
import re
import subprocess
import sys

from memory import services
from memory.models import Agent, Subject
from tests.support.stack import ROOT
from tests.openai_server import OpenAIStub

README = ROOT / "clients" / "python" / "README.md"


def test_the_agent_framework_program_in_the_readme_runs_as_written(portal):
    subject = Subject.objects.get(user_id=portal.user_id)
    agent = Agent.objects.get(grants__subject=subject)
    services.messages_append(subject=subject, agent=agent, session_id="readme-0",
                             messages=[{"role": "user", "content": "I live in Porto, by the river."}])
    [program] = re.findall(r"## Agent Framework\n.*?```python\n(.*?)```", README.read_text(), re.DOTALL)
    with OpenAIStub() as model:
        env = {**os.environ, "MEMORY_PORTAL_URL": portal.base_url, "MEMORY_PORTAL_TOKEN": portal.token,
               "MEMORY_PORTAL_USER_ID": portal.user_id, "OPENAI_API_KEY": "sk-local", "OPENAI_MODEL": "stub",
               "OPENAI_BASE_URL": model.url, "PYTHONPATH": str(ROOT / "clients" / "python" / "src")}
        run = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "You asked: Where do I live?"
    [chat] = [r["body"] for r in model.requests if r["path"].endswith("/chat/completions")]
    assert "I live in Porto, by the river." in chat["messages"][0]["content"]  # the portal's memory, as instructions


def test_the_client_builds_offline_with_the_pinned_setuptools(tmp_path):
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-index", "--no-build-isolation",
                            "--wheel-dir", str(tmp_path), str(ROOT / "clients" / "python")],
                           capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr
    assert [p.name for p in tmp_path.glob("memory_portal_client-*.whl")]
