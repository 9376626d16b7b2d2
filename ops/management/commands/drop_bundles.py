"""``manage.py drop_bundles``: free the second stored copy of versions uploaded before issue 18."""

import hashlib

from django.core.management.base import BaseCommand
from django.db import transaction

from tournaments.models import BotVersion


class Command(BaseCommand):
    help = "Delete the stored bundle of each version whose original upload is kept and intact (issue 18)."

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="say what would go, delete nothing")

    def handle(self, *args, dry_run=False, **options):
        dropped, freed, kept = 0, 0, 0
        for version in BotVersion.objects.exclude(file="").exclude(original="").iterator():
            try:
                with version.original.open("rb") as original:
                    intact = hashlib.sha256(original.read()).hexdigest() == version.sha256
            except OSError:
                intact = False
            if not intact:
                kept += 1
                continue
            name, storage = version.file.name, version.file.storage
            size = storage.size(name) if storage.exists(name) else 0
            if not dry_run:
                with transaction.atomic():
                    BotVersion.objects.filter(pk=version.pk, file=name).update(file="")
                    transaction.on_commit(lambda name=name, storage=storage: storage.delete(name))
            dropped, freed = dropped + 1, freed + size
        verb = "would drop" if dry_run else "dropped"
        self.stdout.write(f"{verb} {dropped} bundles ({freed} bytes); kept {kept} whose original is missing or "
                          "does not match its checksum")
