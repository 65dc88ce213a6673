from django.apps import AppConfig


class GovernanceConfig(AppConfig):
    name = "governance"
    verbose_name = "Memory governance"

    def ready(self):
        from governance.selectors import erasures_count, erasures_waiting, exports_count, exports_waiting, \
            subject_is_erased
        from governance.tasks import JOB_CLAIM_SECONDS, export_build_task, subject_erase_task
        from memory.selectors import subject_erasure_check_register
        from portal.outbox import WorkKind, work_kind_register

        # The worker asks memory whether it may write; governance, which holds the erasure jobs, answers.
        subject_erasure_check_register(subject_is_erased)
        work_kind_register(WorkKind(name="exports", task=export_build_task, waiting=exports_waiting,
                                    count=exports_count, claim_seconds=JOB_CLAIM_SECONDS))
        work_kind_register(WorkKind(name="erasures", task=subject_erase_task, waiting=erasures_waiting,
                                    count=erasures_count, claim_seconds=JOB_CLAIM_SECONDS))
