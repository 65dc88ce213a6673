from django.apps import AppConfig


class PortalConfig(AppConfig):
    name = "portal"

    def ready(self):
        from celery.signals import before_task_publish

        from portal import graphdb, outbox

        graphdb.configure()
        before_task_publish.connect(outbox.message_stamp, weak=False)
