"""The production profile: gunicorn with DEBUG off serves the pages with their hashed, long-cached stylesheets
and scripts under a Content-Security-Policy, its own 404 page and icon, and refuses to start on the
development key."""

import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from django.template.loader import render_to_string

from portal.processes import database_url
from tests.support.stack import LOADED_MACHINE_SECONDS, ROOT, closed_port

HTTPS = {"X-Forwarded-Proto": "https"}  # what a TLS-terminating proxy adds


def production_env(tmp_path) -> dict:
    return {
        **os.environ, "DEBUG": "false", "SECRET_KEY": secrets.token_urlsafe(50), "ALLOWED_HOSTS": "127.0.0.1",
        "BEHIND_TLS_PROXY": "true", "STATIC_ROOT": str(tmp_path / "static"), "DATABASE_URL": database_url(),
    }


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def fetch(url: str, headers: dict | None = None):
    """Return (status, headers, body) without following redirects."""
    opener = urllib.request.build_opener(NoRedirect)
    try:
        request = urllib.request.Request(url, headers=headers or {})
        with opener.open(request, timeout=LOADED_MACHINE_SECONDS) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


@pytest.fixture
def gunicorn(tmp_path, django_db_setup):
    env = production_env(tmp_path)
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
                   cwd=ROOT, env=env, check=True)
    port = closed_port()
    log = open(tmp_path / "gunicorn.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "wiring.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + LOADED_MACHINE_SECONDS
    while True:
        try:
            fetch(f"{base}/healthz")
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"gunicorn did not start; see {log.name}")
            time.sleep(0.2)
    yield base
    proc.terminate()
    proc.wait(timeout=30)
    log.close()


def test_pages_come_with_their_hashed_stylesheets_scripts_policy_404_page_and_icon(gunicorn):
    status, headers, body = fetch(f"{gunicorn}/accounts/login/", HTTPS)
    assert status == 200
    policy = headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "style-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy
    stylesheets = re.findall(rb'<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"', body)
    assert any(re.search(rb"/admin/css/base\.[0-9a-f]{12}\.css$", href) for href in stylesheets)
    for href in stylesheets:
        status, headers, css = fetch(f"{gunicorn}{href.decode()}", HTTPS)
        assert status == 200 and headers["Content-Type"].startswith("text/css") and css
        assert "immutable" in headers["Cache-Control"]  # a hashed name: browsers keep it for good
    status, headers, js = fetch(f"{gunicorn}/static/portal/portal.js", HTTPS)
    assert status == 200 and "javascript" in headers["Content-Type"] and js
    # A missing page and the icon a browser asks for on its own are the portal's.
    status, headers, body = fetch(f"{gunicorn}/no-such-page/", HTTPS)
    assert status == 404 and b"Page not found" in body and b"/static/portal/portal." in body
    status, headers, _ = fetch(f"{gunicorn}/favicon.ico", HTTPS)
    assert status == 302
    status, headers, icon = fetch(f"{gunicorn}{headers['Location']}", HTTPS)
    assert status == 200 and headers["Content-Type"].startswith("image/svg+xml") and icon.startswith(b"<svg")


def test_plain_http_is_redirected_to_https_except_the_health_check(gunicorn):
    status, headers, _ = fetch(f"{gunicorn}/me/")
    assert status == 301 and headers["Location"].startswith("https://")
    status, _, _ = fetch(f"{gunicorn}/healthz")
    assert status in (200, 503)  # answered, not redirected: load balancers probe over plain HTTP


def test_a_server_error_is_answered_by_the_portals_own_page():
    # Rendered without a request, as Django's server_error view does when something else failed.
    page = render_to_string("500.html")
    assert "Something went wrong" in page and "/static/portal/portal.css" in page and "{%" not in page


# Missing, the development key, short, of too few characters, Django's own insecure default.
WEAK_KEYS = ("", "dev-only-insecure-key-change-me", "dev", "x" * 20, "ab" * 40,
             "django-insecure-" + secrets.token_urlsafe(50))


def test_debug_off_refuses_to_start_without_a_strong_key_of_its_own_in_one_line(tmp_path):
    commands = [[sys.executable, "manage.py", "check", "--deploy"],
                [sys.executable, "-m", "gunicorn", "wiring.wsgi", "--bind", f"127.0.0.1:{closed_port()}"]]
    for key in WEAK_KEYS:
        for command in commands if key == "dev" else commands[:1]:
            result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120,
                                    env={**production_env(tmp_path), "SECRET_KEY": key})
            said = result.stderr.strip().splitlines()
            assert result.returncode != 0 and len(said) == 1 and "SECRET_KEY" in said[0], (key, command, said[-5:])


def test_the_deploy_check_is_clean_with_debug_off(tmp_path):
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy"], cwd=ROOT,
                            env=production_env(tmp_path), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def raw(base: str, target: str, headers: dict | None = None) -> tuple[int, str, bytes]:
    """Send one GET with this exact request target (no client refuses what it holds); return status, type, body."""

    host, port = base.removeprefix("http://").split(":")
    lines = [f"GET {target} HTTP/1.1", f"Host: {host}", "Connection: close",
             *(f"{name}: {value}" for name, value in {**HTTPS, **(headers or {})}.items())]
    with socket.create_connection((host, int(port)), timeout=LOADED_MACHINE_SECONDS) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin1"))
        answer = b"".join(iter(lambda: sock.recv(65536), b""))
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    kind = re.search(rb"(?im)^content-type:\s*([^\r\n;]+)", head)
    return status, kind.group(1).decode() if kind else "", body


def test_what_gunicorn_refuses_and_paths_no_route_matches_are_answered_in_the_one_error_shape(gunicorn):
    cases = [
        ("/api/v1/users/" + "a" * 9000 + "/messages/", {}, 414),  # past gunicorn's request-line limit
        ("/me/?q=" + "a" * 9000, {}, 414),
        ("/api/v1/context", {"X-Big": "b" * 9000}, 431),  # a header past gunicorn's field limit
        ("/api/v1/users/a%0Ab/messages/", {}, 401),  # a newline or a slash in a segment: the route, or none
        ("/api/v1/users/a%2Fb/messages/x%2Fy", {}, 404),
        ("/api/v1/context%0A", {}, 404),
    ]
    for target, headers, expected in cases:
        status, kind, body = raw(gunicorn, target, headers)
        assert (status, kind) == (expected, "application/json"), (target[:60], status, body[:200])
        assert set(json.loads(body)) == {"message", "extra"}
