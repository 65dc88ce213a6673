import uuid

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0002_retention_access_items"),
    ]

    operations = [
        migrations.AddField(
            model_name="grant",
            name="may_correct",
            field=models.BooleanField(
                default=False,
                help_text="The person lets this agent correct their memory without asking them first."),
        ),
        migrations.CreateModel(
            name="Correction",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("public_id", models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                ("kind", models.CharField(max_length=20)),
                ("target_uid", models.CharField(max_length=64)),
                ("version_uid", models.CharField(blank=True, max_length=64)),
                ("value", models.JSONField(default=dict)),
                ("previous", models.JSONField(default=dict)),
                ("reason", models.CharField(blank=True, max_length=500)),
                ("status", models.CharField(
                    choices=[("proposed", "Proposed"), ("applied", "Applied"), ("rejected", "Rejected"),
                             ("undone", "Undone")],
                    default="proposed", max_length=10)),
                ("corrected_by", models.CharField(
                    blank=True, help_text="Provenance: 'the person', 'reviewer <email>' or 'agent <id>'.",
                    max_length=200)),
                ("decided_by", models.CharField(blank=True, max_length=200)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("decided_at", models.DateTimeField(blank=True, null=True)),
                ("undone_at", models.DateTimeField(blank=True, null=True)),
                ("agent", models.ForeignKey(
                    blank=True, help_text="The agent that proposed (or directly made) it.", null=True,
                    on_delete=django.db.models.deletion.SET_NULL, to="memory.agent")),
                ("subject", models.ForeignKey(
                    on_delete=django.db.models.deletion.CASCADE, related_name="corrections", to="memory.subject")),
            ],
            options={
                "indexes": [
                    models.Index(fields=["subject", "target_uid"], name="correction_subject_target"),
                    models.Index(fields=["subject", "version_uid"], name="correction_subject_version"),
                    models.Index(fields=["status", "created_at"], name="correction_status_created"),
                ],
            },
        ),
    ]
