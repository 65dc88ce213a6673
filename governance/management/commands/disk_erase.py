"""Take off the disk what erasures deleted, or only check again; print what ran and what was found."""

import json

from django.core.management.base import BaseCommand

from governance import disk_step
from governance.tasks import disk_locked


class Command(BaseCommand):
    help = ("Take off the disk what erasures deleted (Neo4j's store compacted: it serves nothing meanwhile; the "
            "database's tables and Redis's files rewritten), scan every place byte by byte and sign the receipts "
            "again. With --check, only scan again.")

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="only scan again for erasures already stepped")

    def handle(self, *args, check, **options):
        report = {}
        disk_locked(lambda: report.update(disk_step.disk_erase() if not check else
                                          {"checked_again": disk_step.disk_check(after="a check asked for")}))
        if not report:
            self.stderr.write("Another disk step or check is running; nothing was done.")
            return
        self.stdout.write(json.dumps(report, default=str))
