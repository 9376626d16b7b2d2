"""``manage.py swiss FILE.trf``: the next round's pairings of a TRF, as JaVaFo and bbpPairings print them."""

import os
import stat

from django.core.management.base import BaseCommand, CommandError

from tournaments.swiss.dutch import CannotPair
from tournaments.swiss.trf import TrfError, next_pairing, pairing_lines, read

# A TRF line is about 90 + 10 a round characters: 9999 players (the rank's four columns) of 100 rounds fit.
MAX_BYTES = 16 * 2**20


class Command(BaseCommand):
    help = "Print the next round's Dutch-system pairings of a TRF16 file (bbpPairings' output format)."

    def add_arguments(self, parser):
        parser.add_argument("file", help=f"a TRF16 file (XXR for the number of rounds), at most {MAX_BYTES} bytes")

    def handle(self, *args, file, **options):
        try:
            text = _read(file)
        except OSError as error:
            raise CommandError(f"{file}: {error.strerror}", returncode=2) from None
        try:
            pairing = next_pairing(read(text))
        except TrfError as error:
            raise CommandError(f"{file}: {error}", returncode=2) from None
        except CannotPair as error:
            raise CommandError(f"{file}: {error}", returncode=1) from None
        self.stdout.write("\n".join(pairing_lines(pairing)))


def _read(file: str) -> str:
    """The file's text, read only if it is a regular file (a FIFO would wait for a writer, /dev/zero never end) and
    only up to MAX_BYTES."""
    # O_NONBLOCK: opening a FIFO does not wait for a writer; the file is then refused for what it is.
    descriptor = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise CommandError(f"{file}: not a regular file", returncode=2)
        with open(descriptor, "rb", closefd=False) as trf:
            data = trf.read(MAX_BYTES + 1)
    finally:
        os.close(descriptor)
    if len(data) > MAX_BYTES:
        raise CommandError(f"{file}: more than {MAX_BYTES} bytes; a TRF is smaller", returncode=2)
    return data.decode("utf-8", errors="replace")
