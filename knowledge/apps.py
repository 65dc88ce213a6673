from django.apps import AppConfig


class KnowledgeConfig(AppConfig):
    name = "knowledge"

    def ready(self):
        from knowledge.selectors import knowledge_context_section
        from memory.context import ContextSection, context_section_register

        # Only knowledge knows memory: it adds its section to the context the way admin.site.register adds a page.
        context_section_register(ContextSection(name="knowledge", header="Knowledge:", default_limit=5,
                                                provide=knowledge_context_section, item_type="knowledge",
                                                scope="knowledge:read"))
