from django.apps import AppConfig
from django.conf import settings
from django.urls import register_converter


class MemoryConfig(AppConfig):
    name = "memory"

    def ready(self):
        from memory.converters import KindConverter
        from memory.selectors import access_queue_count, access_queue_waiting, extractions_count, extractions_waiting
        from memory.tasks import access_queue_drain_task, message_extract
        from portal.outbox import WorkKind, work_kind_register

        register_converter(KindConverter, "kind")
        work_kind_register(WorkKind(name="extractions", task=message_extract, waiting=extractions_waiting,
                                    count=extractions_count, claim_seconds=settings.EXTRACTION_CLAIM_SECONDS))
        # The access log's queue, drained by Beat; re-dispatch queues a drain should the periodic one stall.
        work_kind_register(WorkKind(name="access_log", task=access_queue_drain_task, waiting=access_queue_waiting,
                                    count=access_queue_count, claim_seconds=60))
