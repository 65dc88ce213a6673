# The audit trail moved here from review: this migration only records the model in portal's state;
# review.0002 renames the existing table, so a database that has one keeps its rows.

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("review", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="AuditEvent",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                                   verbose_name="ID")),
                        ("actor_label", models.CharField(blank=True, help_text="Who acted, as recorded at the time.",
                                                         max_length=254)),
                        ("action", models.CharField(db_index=True, max_length=40)),
                        ("subject_digest", models.CharField(blank=True, db_index=True, max_length=64)),
                        ("target_type", models.CharField(blank=True, max_length=40)),
                        ("target_id", models.CharField(blank=True, max_length=200)),
                        ("before", models.JSONField(blank=True, default=dict)),
                        ("after", models.JSONField(blank=True, default=dict)),
                        ("reason", models.TextField(blank=True)),
                        ("created_at", models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                        ("actor", models.ForeignKey(blank=True, null=True,
                                                    on_delete=django.db.models.deletion.SET_NULL, related_name="+",
                                                    to=settings.AUTH_USER_MODEL)),
                    ],
                    options={"ordering": ["-created_at", "-pk"]},
                ),
            ],
        ),
    ]
