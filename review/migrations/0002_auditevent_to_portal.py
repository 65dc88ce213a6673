# The audit trail moved to portal (every app writes it). The table is renamed, not recreated, so its
# rows stay; review keeps a proxy of it that holds review's permissions under their old names, and
# the content type (review, auditevent) those permissions hang on is unchanged.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("review", "0001_initial"),
        ("portal", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.AlterModelTable(name="AuditEvent", table="portal_auditevent")],
            state_operations=[migrations.DeleteModel(name="AuditEvent")],
        ),
        migrations.CreateModel(
            name="AuditEvent",
            fields=[],
            options={
                "verbose_name": "audit event",
                "proxy": True,
                "indexes": [],
                "constraints": [],
                "permissions": [
                    ("review_merges", "Can approve, reject and undo entity merges"),
                    ("review_facts", "Can confirm and revert superseded facts"),
                    ("review_traces", "Can browse and delete reasoning traces"),
                    ("view_memory_content", "Can see the content of a user's memory (each view is audited)"),
                    ("manage_agents", "Can create agents and issue or revoke their tokens"),
                    ("erase_subjects", "Can erase a user's memory on request"),
                ],
            },
            bases=("portal.auditevent",),
        ),
    ]
