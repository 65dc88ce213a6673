from django.db import migrations


def forget_scope_add(apps, schema_editor):
    """Forgetting an item took `messages:write` before it had a scope of its own: keep what each agent could do."""
    Agent = apps.get_model("memory", "Agent")
    for agent in Agent.objects.all():
        if "messages:write" in agent.scopes and "memory:forget" not in agent.scopes:
            agent.scopes = [*agent.scopes, "memory:forget"]
            agent.save(update_fields=["scopes"])


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0003_correction"),
    ]

    operations = [
        migrations.RunPython(forget_scope_add, migrations.RunPython.noop),
    ]
