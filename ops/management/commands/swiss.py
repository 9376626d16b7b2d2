"""``manage.py swiss FILE.trf``: the next round's pairings of a TRF, as JaVaFo and bbpPairings print them."""

from django.core.management.base import BaseCommand, CommandError

from tournaments.swiss.dutch import CannotPair
from tournaments.swiss.trf import TrfError, next_pairing, pairing_lines, read


class Command(BaseCommand):
    help = "Print the next round's Dutch-system pairings of a TRF16 file (bbpPairings' output format)."

    def add_arguments(self, parser):
        parser.add_argument("file", help="a TRF16 file (XXR for the number of rounds)")

    def handle(self, *args, file, **options):
        try:
            with open(file, encoding="utf-8", errors="replace") as trf:
                text = trf.read()
        except OSError as error:
            raise CommandError(f"{file}: {error.strerror}", returncode=2) from None
        try:
            pairing = next_pairing(read(text))
        except TrfError as error:
            raise CommandError(f"{file}: {error}", returncode=2) from None
        except CannotPair as error:
            raise CommandError(f"{file}: {error}", returncode=1) from None
        self.stdout.write("\n".join(pairing_lines(pairing)))
