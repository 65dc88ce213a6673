"""Shared fixtures: a real Neo4j (refused when it holds data), a real Redis, a real worker, and the
subjects, agents and authenticated API clients that every app's tests use."""

import itertools
import os
import subprocess
import time
from collections.abc import Sequence

import pytest
import redis
from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from neomodel import db
from rest_framework.test import APIClient

from memory import services
from memory.models import SCOPES, Agent
from portal.processes import celery_worker_command, database_url
from tests.support.stack import (BROWSER_PASSWORD, CHROMIUM_ARGS, LOADED_MACHINE_SECONDS, MARKER, ROOT, SCREENSHOTS,
                                 refuse_foreign_graph)

# Fixtures of their own modules that several tests use: a Redis, a Neo4j and two people with memory everywhere.
pytest_plugins = ["tests.support.redis", "tests.support.neo4j", "tests.support.boundaries"]


@pytest.fixture(scope="session", autouse=True)
def graph_schema():
    """Refuse a Neo4j that holds anyone's data, then install the schema once."""
    from django.core.management import call_command

    refuse_foreign_graph()
    db.cypher_query(f"MATCH (n) WHERE NOT n:{MARKER} DETACH DELETE n")
    db.cypher_query(f"MERGE (:{MARKER})")
    call_command("install_labels", verbosity=0)


@pytest.fixture(autouse=True)
def clean_stores():
    """Each test starts with an empty memory graph and an empty Redis database."""
    yield
    db.cypher_query(f"MATCH (n) WHERE NOT n:{MARKER} DETACH DELETE n")
    redis.Redis.from_url(settings.REDIS_URL).flushdb()


@pytest.fixture(scope="module")
def celery_worker_process(request, django_db_setup):
    """A real Celery worker (prefork) in its own process, on the suite's Redis and test database.

    Module-scoped so that tests elsewhere can rely on no worker running. Tests that let it read
    rows they wrote must commit them (transactional_db). A module sets WORKER_CONCURRENCY for a
    pool of more than one process."""
    from wiring.celery import app

    app.control.purge()  # tasks earlier tests queued with no worker running refer to data long gone
    log = open(ROOT / "var" / "test-worker.log", "w")
    env = {**os.environ, "DATABASE_URL": database_url()}
    command = celery_worker_command(hostname=f"test-{os.getpid()}@%h", queues="celery,extraction,maintenance",
                                    concurrency=getattr(request.module, "WORKER_CONCURRENCY", 1), loglevel="INFO")
    proc = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + LOADED_MACHINE_SECONDS
    while not app.control.ping(timeout=0.5):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"the Celery worker did not start; see {log.name}")
    yield proc
    proc.terminate()  # a warm shutdown: it finishes the task it runs
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:  # a task still running then is the test's to report, not the teardown's
        proc.kill()
        proc.wait()
    log.close()


_ids = itertools.count(1)


@pytest.fixture
def make_subject(db):
    def make(email=None):
        n = next(_ids)
        user = get_user_model().objects.create_user(username=f"person{n}", email=email or f"person{n}@example.com")
        return services.subject_get_or_create(user=user)

    return make


@pytest.fixture
def make_agent(db):
    """Return (agent, bearer token) for a new agent with the given scopes (all by default)."""

    def make(scopes=SCOPES, **fields):
        n = next(_ids)
        agent = Agent.objects.create(agent_id=f"agent-{n}", name=f"Agent {n}", scopes=list(scopes), **fields)
        _, secret = services.agent_token_issue(agent=agent)
        return agent, secret

    return make


@pytest.fixture
def api_for():
    def make(secret):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
        return client

    return make


@pytest.fixture
def staff(db):
    """Return a factory of (user, signed-in Client) for a staff member holding the given review permissions."""

    def make(*codenames):
        n = next(_ids)
        user = get_user_model().objects.create_user(username=f"staff{n}", email=f"staff{n}@example.com",
                                                    password="a-long-passphrase-3", is_staff=True)
        user.user_permissions.set(Permission.objects.filter(content_type__app_label="review", codename__in=codenames))
        client = Client()
        client.force_login(user)
        return user, client

    return make


@pytest.fixture
def granted(make_subject, make_agent, api_for):
    """A subject who granted one agent access; returns (subject, agent, client)."""
    subject = make_subject()
    agent, secret = make_agent()
    services.grant_create(subject=subject, agent=agent)
    return subject, agent, api_for(secret)


@pytest.fixture
def granted_person(granted):
    """A subject who granted one agent access, signed in to their pages; returns (subject, agent, api, page)."""
    subject, agent, api = granted
    page = Client()
    page.force_login(subject.account)
    return subject, agent, api, page


@pytest.fixture
def chromium(monkeypatch):
    """Return (playwright, browser): Debian's Chromium, headless; Playwright never downloads one here."""
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls made here are still synchronous.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS, headless=True)
        yield pw, browser
        browser.close()


@pytest.fixture
def browser_sign_in(chromium, live_server):
    """Return a factory of (user, page): a user with a verified email address and the given review
    permissions, signed in through the sign-in form of a new 1280 px page, which waits until they land on
    `next` (by default where the site sends them: staff to the admin index, a person to /me/)."""
    _, browser = chromium

    def sign_in(username: str, *, next: str = "", permissions: Sequence[str] = (), **fields):
        user = get_user_model().objects.create_user(username=username, email=f"{username}@example.com",
                                                    password=BROWSER_PASSWORD, **fields)
        EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
        user.user_permissions.set(Permission.objects.filter(content_type__app_label="review", codename__in=permissions))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(15_000)
        page.goto(f"{live_server.url}/accounts/login/" + (f"?next={next}" if next else ""))
        page.fill("input[name=login]", user.email)
        page.fill("input[name=password]", BROWSER_PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{live_server.url}{next or ('/admin/' if user.is_staff else '/me/')}")
        return user, page

    return sign_in
