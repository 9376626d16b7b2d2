"""``manage.py make_openings GAME --name NAME --count N --plies K --seed S [--ladder]``: an opening suite."""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from engines import GAME_IDS
from engines.openings import MAX_COUNT, MAX_PLIES
from tournaments.services.openings import create_suite


class Command(BaseCommand):
    help = ("Make an opening suite for a game from the referee: COUNT distinct positions, each PLIES random legal "
            "actions (Fidchell: placements) from the start, reproducible from SEED, stored with the ruleset.")

    def add_arguments(self, parser):
        parser.add_argument("game", help=f"the game id: one of {', '.join(GAME_IDS)}")
        parser.add_argument("--name", required=True, help="the suite's name, unique for the game")
        parser.add_argument("--count", type=int, required=True, help=f"how many openings (1 to {MAX_COUNT})")
        parser.add_argument("--plies", type=int, required=True, help=f"how many random plies deep (1 to {MAX_PLIES})")
        parser.add_argument("--seed", type=int, required=True, help="the random seed that reproduces the suite")
        parser.add_argument("--ladder", action="store_true",
                            help="the suite the ladder (and SPRT tests by default) plays this game with")

    def handle(self, *args, game, name, count, plies, seed, ladder, **options):
        try:
            suite = create_suite(game, name=name, count=count, plies=plies, seed=seed, ladder=ladder)
        except ValidationError as error:
            problems = "; ".join(f"{field}: {' '.join(messages)}" for field, messages in error.message_dict.items())
            raise CommandError(problems, returncode=2) from None
        self.stdout.write(f"{suite}: {suite.openings.count()} openings {plies} plies deep under {suite.ruleset}, "
                          f"seed {seed}" + (", the ladder's suite" if ladder else ""))
