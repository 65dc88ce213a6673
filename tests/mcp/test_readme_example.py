"""The README's MCP program runs as written against the live portal: the official SDK's OAuth client registers
itself, the person allows it on the consent page, the program prints the context with the message it added; run
again, it connects with what it saved, without asking the person, and the person still has one agent for it."""

import re
import threading
import time
import urllib.request
import webbrowser
from urllib.parse import urlsplit

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.test import Client

from memory.embeddings import get_embedder
from memory.models import Agent
from tests.support.stack import BROWSER_PASSWORD, ROOT


def readme_program(live_url: str) -> str:
    text = (ROOT / "README.md").read_text()
    program = re.search(r"<!-- mcp-python-example[^>]*-->\n```python\n(.*?)```", text, re.S)[1]
    return program.replace("http://127.0.0.1:8000", live_url)


def test_the_readmes_program_connects_once_and_again(live_server, transactional_db, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # the person's consent, in-process, between the SDK's awaits
    monkeypatch.chdir(tmp_path)  # where the program saves its registration and tokens
    user = get_user_model().objects.create_user(username="reader", email="reader@example.com", password=BROWSER_PASSWORD)
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    person = Client(HTTP_HOST=urlsplit(live_server.url).netloc)  # the issuer the client expects back
    person.force_login(user)
    asked = []

    def allow(url: str):
        """Do what the person does in the browser: read the consent page and press Allow as it stands."""
        asked.append(url)
        target = urlsplit(url)
        form = person.get(f"{target.path}?{target.query}").context["form"]
        answer = person.post(target.path, {**{name: form[name].value() for name in form.fields
                                              if form[name].value() is not None}, "allow": "1"})
        # The browser follows the redirect to the program's own page; the program waits for it on its thread.
        threading.Thread(target=urllib.request.urlopen, args=(answer["Location"],), daemon=True).start()

    monkeypatch.setattr(webbrowser, "open", allow)
    get_embedder()  # the live server's first context builds it: not within the program's 30 s on a busy machine
    program = compile(readme_program(live_server.url), "README.md", "exec")
    started = time.monotonic()
    exec(program, {"__name__": "__main__"})
    first = capsys.readouterr().out
    connected_in = time.monotonic() - started
    exec(program, {"__name__": "__main__"})
    second = capsys.readouterr().out

    assert len(asked) == 1  # the second run asked the person nothing
    assert "My desk is by the window." in first and "My desk is by the window." in second
    assert [agent.name for agent in Agent.objects.filter(grants__subject__account=user)] == ["My first MCP client"]
    print(f"\nthe README's program connected in {connected_in:.1f} s")
