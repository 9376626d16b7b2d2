"""Gauntlets: one entrant, the champion the organiser names, against every other entrant; one mini-match of
``games_per_pairing`` games (colour-swapped pairs: the champion is White in odd games) against each."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from ..models import BotVersion, Tournament, TournamentEntrant


def check_champion(game: str, champion: BotVersion | None) -> None:
    """At creation (or a change): a gauntlet names its champion, a version of the tournament's game."""
    if champion is None:
        raise ValidationError({"champion": ["a gauntlet names its champion: the id of the version that plays "
                                            "every other entrant"]})
    if champion.bot.game != game:
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
