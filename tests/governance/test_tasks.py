"""The export and erasure tasks: an error a retry cannot mend marks the job failed; a store that is down
is retried and never marks it failed, so a later run (the Beat re-dispatch) finishes it."""

import pytest
from celery import states
from neo4j.exceptions import ServiceUnavailable
from neomodel import db

from governance import services
from governance.models import ErasureJob, ErasureScope, ExportJob, JobStatus
from governance.tasks import export_build_task, subject_erase_task
from tests.support.stack import neo4j_unreachable

pytestmark = pytest.mark.django_db


def _nodes(user_id: str) -> int:
    return db.cypher_query("MATCH (n {user_id: $u}) RETURN count(n)", {"u": user_id})[0][0][0]


def test_an_export_that_cannot_be_written_is_marked_failed_with_its_error(make_subject, settings, tmp_path):
    subject = make_subject()
    job = services.export_request(subject=subject)
    media = tmp_path / "media"
    media.write_text("")  # a file where the media folder should be: no export directory can be made
    settings.MEDIA_ROOT = str(media)

    result = export_build_task.apply(args=(job.pk,))

    assert result.state == states.FAILURE and isinstance(result.result, OSError)
    job = ExportJob.objects.get(pk=job.pk)
    assert job.status == JobStatus.FAILED and job.error.startswith(f"{type(result.result).__name__}: ")


def test_an_erasure_with_neo4j_down_is_retried_never_failed_and_a_later_run_finishes_it(person):
    p, other = person(), person("BISON")
    job = services.erasure_request(subject=p["subject"], scope=ErasureScope.ALL)

    with neo4j_unreachable():
        result = subject_erase_task.apply(args=(job.pk,))  # eagerly, its retries run at once, all failing

    assert result.state == states.FAILURE and isinstance(result.result, ServiceUnavailable)
    assert ErasureJob.objects.get(pk=job.pk).status != JobStatus.FAILED
    assert _nodes(p["subject"].user_id) > 0

    subject_erase_task.apply(args=(job.pk,)).get()  # the job queued again once Neo4j is back
    assert ErasureJob.objects.get(pk=job.pk).status == JobStatus.DONE
    assert _nodes(p["subject"].user_id) == 0 and _nodes(other["subject"].user_id) > 0
