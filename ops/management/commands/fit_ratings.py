"""Fit every rated game (maximum likelihood, ``ratings.fit``) and store the fitted ratings."""

import time

from django.core.management.base import BaseCommand, CommandError

from engines import GAME_IDS
from tournaments.services.ratings import fit_ratings


class Command(BaseCommand):
    help = "Fit ratings with intervals and the first player's advantage from all rated games; store them."

    def add_arguments(self, parser):
        parser.add_argument("--game", action="append", dest="games", metavar="GAME",
                            help=f"only this game id (repeatable): one of {', '.join(GAME_IDS)}")

    def handle(self, *args, games=None, **options):
        unknown = sorted(set(games or ()) - set(GAME_IDS))
        if unknown:
            raise CommandError(f"unknown game {', '.join(unknown)}: the games are {', '.join(GAME_IDS)}")
        started = time.perf_counter()
        fits = fit_ratings(games)
        for fit in fits:
            rated = fit.ratings.filter(status="rated").count()
            ranked = fit.ratings.filter(rank__isnull=False).count()
            line = f"{fit.game}: {fit.games} rated games, {rated} bot versions rated, {ranked} bots ranked"
            if fit.advantage is not None:
                line += f", first-player advantage {fit.advantage:+.1f} +/- {fit.advantage_margin:.1f} Elo"
            self.stdout.write(line + (f" ({fit.note})" if fit.note else ""))
        self.stdout.write(f"fitted in {time.perf_counter() - started:.1f} s")
