"""Issue 17, item 8: ratings puppets cannot pump. Accounts are free, so "two bots of one owner never play rated"
alone does not stop five new accounts whose bots lose on purpose to one bot. The arena decides what is rated:
a player's tournament keeps its standings but is unrated; only staff make one official."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from ratings.models import FittedRating, Rating, RatingChange
from tests.playing import play
from tests.support import finished_match, ready_version
from tournaments.models import Match, Tournament
from tournaments.selectors import standings
from tournaments.services import (
    add_entrant,
    change_tournament,
    create_player,
    create_tournament,
    start_tournament,
)
from tournaments.services.ratings import fit_ratings

pytestmark = pytest.mark.django_db


def leaderboard(bot):
    """What the public leaderboard shows of ``bot``: its Elo row and its fitted rating."""
    rating = Rating.objects.get(bot=bot, game="tafl9")
    [fit] = fit_ratings(["tafl9"])
    fitted = FittedRating.objects.get(fit=fit, bot=bot)
    return (rating.elo, rating.games, rating.wins), (fitted.elo, fitted.games)


@pytest.mark.slow
def test_five_puppets_losing_in_a_players_tournament_leave_the_leaderboard_as_it_was(player, make_bot, rivals):
    champ = ready_version(make_bot("champ"))  # ada's bot
    [rival] = rivals("rival")
    # champ has a leaderboard rating from a rated game against a real rival.
    finished_match(champ, rival, ["white", "white"])
    before = leaderboard(champ.bot)
    changes = RatingChange.objects.count()

    puppets = [ready_version(make_bot(f"puppet{n}", owner=create_player(f"sock{n}", None),
                                      open_to_tournaments=True), "illegal_bot.py") for n in range(5)]
    with pytest.raises(ValidationError) as refused:  # ada may not make her tournament rated
        create_tournament(player, name="Pump", game="tafl9", official=True)
    assert list(refused.value.message_dict) == ["official"] and not Tournament.objects.exists()
    cup = create_tournament(player, name="Pump", game="tafl9", games_per_pairing=1, double_round=False,
                            time_control="move:2000")
    with pytest.raises(ValidationError) as refused:
        change_tournament(cup, player, official=True)
    assert list(refused.value.message_dict) == ["official"]
    for version in (champ, *puppets):
        add_entrant(cup, version)
    matches = start_tournament(cup)
    assert len(matches) == 15 and not any(m.rated for m in matches)
    for match in matches:  # the real worker path: claim, the sandbox, the report
        played = play(match.pk)
        assert played.status == "finished", played.failure_reason

    table = {line.entrant.version_id: line for line in standings(cup)}
    assert (table[champ.pk].rank, table[champ.pk].score) == (1, 5.0)  # the tournament keeps its own table
    assert RatingChange.objects.count() == changes
    assert leaderboard(champ.bot) == before


def test_staff_mark_a_draft_official_and_its_matches_are_rated(admin_user, player, rivals):
    entrants = rivals("ann", "bob", "cid")
    cup = create_tournament(player, name="Cup", game="tafl9", double_round=False)
    for version in entrants:
        add_entrant(cup, version)
    change_tournament(cup, admin_user, official=True)
    assert all(m.rated for m in start_tournament(cup))
    cup.refresh_from_db()
    with pytest.raises(ValidationError, match="not draft"):  # no tournament is half rated
        change_tournament(cup, admin_user, official=False)
    assert Match.objects.filter(tournament=cup, rated=True).count() == 3
