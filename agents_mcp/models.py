"""An MCP client a person connected to their memory through the authorization flow."""

from django.db import models
from oauth2_provider.settings import oauth2_settings

from memory.models import Agent, Subject


class ClientConnection(models.Model):
    """A client (an OAuth application, usually registered by itself) that one person approved: it acts as an
    agent of its own, granted by that person alone, so its calls need no user id."""

    application = models.ForeignKey(oauth2_settings.APPLICATION_MODEL, on_delete=models.CASCADE,
                                    related_name="connections")
    subject = models.ForeignKey(Subject, on_delete=models.CASCADE, related_name="client_connections")
    agent = models.OneToOneField(Agent, on_delete=models.CASCADE, related_name="client_connection")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["application", "subject"], name="one_connection_per_client")]

    def __str__(self):
        return f"{self.agent} for {self.subject}"
