"""Gauntlets: one entrant, the champion the organiser names, against every other entrant; one mini-match of
``games_per_pairing`` games (colour-swapped pairs: the champion is White in odd games) against each."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from ..models import BotVersion, Tournament, TournamentEntrant


def check_champion(game: str, champion: BotVersion | None) -> None:
    """A gauntlet's champion, when named (at creation, or later while a draft), is a version of its game; the
    start refuses a gauntlet whose champion is not named or not entered."""
    if champion is not None and champion.bot.game != game:
        raise ValidationError({"champion": [f"{champion} plays {champion.bot.game}, the tournament {game}"]})


def pairings(tournament: Tournament, entrants: list[TournamentEntrant]) -> list[tuple[int, object, object]]:
    """(round, champion, opponent) for each other entrant in seed order, each its own round. The champion must
    be entered: a 400 naming ``champion`` if it is not (never named, or taken out since)."""
    champion = next((entrant for entrant in entrants if entrant.version_id == tournament.champion_id), None)
    if champion is None:
        name = "no champion is named" if tournament.champion_id is None else "the champion is not entered"
        raise ValidationError({"champion": [f"cannot start the gauntlet: {name}; enter it (it plays every other "
                                            "entrant)"]})
    others = [entrant for entrant in entrants if entrant.pk != champion.pk]
    return [(number, champion.version, entrant.version) for number, entrant in enumerate(others, start=1)]
