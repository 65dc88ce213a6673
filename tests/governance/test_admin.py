"""Erasure on the staff admin site: a staff member erases a person's memory on request, with a reason."""

import pytest

from governance.models import ErasureJob
from portal.models import AuditEvent, user_id_digest

pytestmark = pytest.mark.django_db
ERASE = "/admin/governance/erasurejob/request/"


def test_staff_erasure_uses_the_self_service_service_with_a_reason(granted, staff):
    subject, _, _ = granted
    _, outsider = staff("view_memory_content")
    assert outsider.post(ERASE, {"user": subject.user_id, "reason": "x"}).status_code == 403
    eraser, client = staff("erase_subjects")
    confirm = client.get(ERASE, {"user": subject.account.email, "reason": "ticket 42"})
    assert "Yes, erase their memory" in confirm.content.decode() and not ErasureJob.objects.exists()
    assert client.post(ERASE, {"user": subject.user_id, "reason": "ticket 42"}).url == "/admin/governance/erasurejob/"
    job = ErasureJob.objects.get()
    assert job.subject == subject and job.scope == "all"
    event = AuditEvent.objects.get(action="erasure.request")
    assert event.actor == eraser and event.reason == "ticket 42" and event.subject_digest == user_id_digest(
        subject.user_id)


def test_the_erasure_jobs_list_needs_the_erasure_permission(granted, staff):
    _, outsider = staff("view_memory_content")
    assert outsider.get("/admin/governance/erasurejob/").status_code == 403
    _, eraser = staff("erase_subjects")
    assert eraser.get("/admin/governance/erasurejob/").status_code == 200
    assert eraser.get("/admin/governance/erasurejob/add/").status_code == 403
