from django.apps import AppConfig
from django.urls import register_converter


class MemoryConfig(AppConfig):
    name = "memory"

    def ready(self):
        from memory.converters import KindConverter

        register_converter(KindConverter, "kind")
