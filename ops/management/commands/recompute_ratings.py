"""Replay every rated game in order and make the rating table match the replay."""

import time

from django.core.management.base import BaseCommand

from tournaments.services.ratings import recompute_ratings


class Command(BaseCommand):
    help = "Recompute every rating from the history of rated games; report what differed."

    def add_arguments(self, parser):
        parser.add_argument("--history", action="store_true",
                            help="also check (and repair) every stored rating change, not only the ratings")

    def handle(self, *args, history=False, **options):
        started = time.perf_counter()
        report = recompute_ratings(history=history)
        seconds = time.perf_counter() - started
        if report.reproduced:
            self.stdout.write(f"{report.games} rated games replayed in {seconds:.1f} s: "
                              "the stored table was reproduced exactly")
            return
        self.stdout.write(
            f"{report.games} rated games replayed in {seconds:.1f} s; fixed: "
            f"{report.ratings_changed} ratings changed, {report.ratings_created} created, "
            f"{report.ratings_deleted} deleted; {report.changes_fixed} rating changes fixed, "
            f"{report.changes_created} created, {report.changes_deleted} deleted")
        for line in report.mismatches[:20]:
            self.stdout.write(f"  {line}")
