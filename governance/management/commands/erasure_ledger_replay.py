"""After restoring a backup: erase again everyone the erasure ledger says was erased since it was taken."""

import json

from django.core.management.base import BaseCommand

from governance import services


class Command(BaseCommand):
    help = ("Erase again each person the erasure ledger (ERASURE_LEDGER, kept outside the backups) lists and a "
            "restored backup brought back, as they were erased then. Run it after a restore, before serving.")

    def add_arguments(self, parser):
        parser.add_argument("--ledger", help="the ledger file, if not ERASURE_LEDGER")

    def handle(self, *args, ledger, **options):
        self.stdout.write(json.dumps(services.erasure_ledger_replay(path=ledger)))
