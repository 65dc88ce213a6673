import os

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wiring.settings")

app = Celery("wiring")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def reconnect_graph(**kwargs):
    from portal import graphdb

    graphdb.reconnect()
