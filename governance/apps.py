from django.apps import AppConfig


class GovernanceConfig(AppConfig):
    name = "governance"
    verbose_name = "Memory governance"

    def ready(self):
        from governance.selectors import subject_is_erased
        from memory.selectors import subject_erasure_check_register

        # The worker asks memory whether it may write; governance, which holds the erasure jobs, answers.
        subject_erasure_check_register(subject_is_erased)
