from django.apps import AppConfig
from django.db.models.signals import post_delete


def _access_token_deleted(sender, instance, **kwargs):
    from agents_mcp.services import connection_token_revoke

    if instance.token_checksum:
        connection_token_revoke(digest=instance.token_checksum)


class AgentsMcpConfig(AppConfig):
    name = "agents_mcp"
    verbose_name = "MCP clients"

    def ready(self):
        from oauth2_provider.models import get_access_token_model

        post_delete.connect(_access_token_deleted, sender=get_access_token_model(),
                            dispatch_uid="agents_mcp_access_token_deleted")
