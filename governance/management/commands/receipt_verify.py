"""Check an erasure receipt: intact and signed by this portal's key (or a public key given)."""

import json
import sys

from cryptography.hazmat.primitives.serialization import load_pem_public_key
from django.core.management.base import BaseCommand

from governance import receipts


class Command(BaseCommand):
    help = "Check an erasure receipt file; exit 1 when it does not verify. --public-key checks against a kept key."

    def add_arguments(self, parser):
        parser.add_argument("receipt", help="the receipt's JSON file, or - for standard input")
        parser.add_argument("--public-key", help="a PEM file of the key that signed it (default: this portal's)")

    def handle(self, *args, receipt, public_key, **options):
        text = sys.stdin.read() if receipt == "-" else open(receipt).read()
        key = load_pem_public_key(open(public_key, "rb").read()) if public_key else None
        try:
            valid = receipts.receipt_verify(json.loads(text), key=key)
        except ValueError:
            valid = False
        self.stdout.write("valid: intact and signed by this portal" if valid else "NOT valid")
        if not valid:
            sys.exit(1)
