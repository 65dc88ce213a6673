"""Measure append and extraction throughput on one real conversation, inline or through a worker pool."""

import json
import os
import re
import subprocess
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

from celery import current_app
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from memory import ingest, services
from memory.models import SCOPES, Agent
from portal import graphdb
from portal.machine import machine
from portal.processes import celery_worker_command

SESSION = re.compile(r"^session_(\d+)$")
TURN_SPACING = timedelta(seconds=30)
MESSAGES_DONE = "MATCH (m:Message {user_id: $user_id}) WHERE m.extraction_status = 'done' RETURN count(m) AS done"
MESSAGE_UIDS = "MATCH (m:Message {user_id: $user_id}) RETURN m.uid AS uid ORDER BY m.created_at, m.seq"
PERSON_DELETE = "MATCH (n {user_id: $user_id}) WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS deleted"


def locomo_turns(path: Path, limit: int) -> list[tuple[str, list[dict]]]:
    """Return up to `limit` turns of one LoCoMo conversation as (session id, messages) with their own times."""
    conversation = json.loads(path.read_text())
    conversation = conversation.get("conversation", conversation)
    first = conversation["speaker_a"]
    sessions, count = [], 0
    for key in sorted((k for k in conversation if SESSION.match(k)), key=lambda k: int(SESSION.match(k).group(1))):
        said = datetime.strptime(conversation[f"{key}_date_time"], "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)
        messages = []
        for i, turn in enumerate(conversation[key][: limit - count]):
            messages.append({"role": "user" if turn["speaker"] == first else "assistant", "content": turn["text"],
                             "client_message_id": turn["dia_id"], "created_at": said + i * TURN_SPACING})
        count += len(messages)
        sessions.append((key, messages))
        if count >= limit:
            break
    return sessions


class Command(BaseCommand):
    help = ("Append the first N turns of a LoCoMo conversation for a new person, then extract them inline in order "
            "or with a Celery pool of --workers processes started on the full queue (its start-up not counted); "
            "print turns per second of each as one JSON line. The person is deleted afterwards.")

    def add_arguments(self, parser):
        parser.add_argument("--conversation", required=True, help="a LoCoMo conversation file (e.g. .../26.json)")
        parser.add_argument("--turns", type=int, default=200)
        parser.add_argument("--workers", type=int, default=0, help="0: extract inline, in order")

    def handle(self, *args, conversation, turns, workers, **options):
        path = Path(conversation)
        if not path.exists():
            raise CommandError(f"No conversation at {path}.")
        sessions = locomo_turns(path, turns)
        total = sum(len(m) for _, m in sessions)
        user = get_user_model().objects.create_user(username=f"bench-{uuid.uuid4().hex[:12]}")
        subject = services.subject_get_or_create(user=user)
        agent = Agent.objects.create(agent_id=f"bench-{uuid.uuid4().hex[:12]}", name="bench", scopes=list(SCOPES))
        services.grant_create(subject=subject, agent=agent)
        current_app.control.purge()
        pool = None
        try:
            started = time.perf_counter()
            for session_id, messages in sessions:
                services.messages_append(subject=subject, agent=agent, session_id=session_id, messages=messages)
            appended = time.perf_counter()
            if workers:  # the appends queued every task: the pool starts on a full queue
                pool = self._pool(workers)
                appended = time.perf_counter()
            else:
                for row in graphdb.rows(MESSAGE_UIDS, {"user_id": subject.user_id}):
                    ingest.message_extract(message_uid=row["uid"], user_id=subject.user_id)
            while graphdb.scalar(MESSAGES_DONE, {"user_id": subject.user_id}) < total:
                time.sleep(0.1)
            extracted = time.perf_counter()
        finally:
            if pool is not None:
                pool.terminate()
                pool.wait(timeout=60)
            current_app.control.purge()  # inline, the appends still queued their tasks
            while graphdb.scalar(PERSON_DELETE, {"user_id": subject.user_id}):
                pass
            agent.delete()
            user.delete()
        self.stdout.write(json.dumps({
            "turns": total, "workers": workers, "ingest_s": round(appended - started, 2),
            "ingest_turns_per_s": round(total / (appended - started), 1),
            "extraction_s": round(extracted - appended, 2),
            "extraction_turns_per_s": round(total / (extracted - appended), 1), "machine": machine(),
        }))

    def _pool(self, workers: int) -> subprocess.Popen:
        """Start a Celery prefork pool on the configured broker and wait until it answers."""

        command = celery_worker_command(hostname=f"bench-{os.getpid()}@%h", queues="celery,extraction",
                                        concurrency=workers)
        process = subprocess.Popen(command, cwd=settings.BASE_DIR, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not current_app.control.ping(timeout=0.5):
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise CommandError("The Celery worker did not start.")
        return process
