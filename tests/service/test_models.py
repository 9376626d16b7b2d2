"""The database refuses what the rules forbid, even when a service is bypassed."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from ratings.models import Rating, RatingChange
from tests.support import ready_version
from tournaments.models import Bot, BotVersion, Game, Match, TournamentEntrant
from tournaments.services import claim_match, create_bot, create_match, create_player, create_tournament

pytestmark = pytest.mark.django_db


def refused(make):
    with pytest.raises(IntegrityError), transaction.atomic():
        make()


def test_player_gets_a_token(player):
    from rest_framework.authtoken.models import Token

    assert Token.objects.filter(user=player).count() == 1
    with pytest.raises(ValidationError, match="taken"):
        create_player("ada", "x")


def test_bot_constraints(player):  # state: constraint
    create_bot(player, "tafl9", "alpha")
    refused(lambda: Bot.objects.create(owner=player, game="tafl9", name="alpha"))
    refused(lambda: Bot.objects.create(owner=player, game="chess", name="beta"))
    refused(lambda: Bot.objects.create(owner=player, game="tafl9", name=""))
    Bot.objects.create(owner=player, game="shatra", name="alpha")  # same name, other game: fine


def test_version_constraints(make_bot):  # state: constraint
    version = ready_version(make_bot("alpha"))
    fields = dict(bot=version.bot, file="x", filename="x.py", kind="py", sha256="0" * 64, size=1)
    refused(lambda: BotVersion.objects.create(number=version.number, **fields))
    refused(lambda: BotVersion.objects.create(number=0, **fields))
    refused(lambda: BotVersion.objects.create(number=5, status="rejected", **fields))  # no reason
    refused(lambda: BotVersion.objects.create(number=6, **{**fields, "sha256": "abc"}))
    refused(lambda: BotVersion.objects.create(number=7, status="maybe", **fields))


def test_match_and_game_constraints(pair):  # state: constraint
    a, b = pair
    base = dict(game="tafl9", time_control="move:100")
    refused(lambda: Match.objects.create(version_a=a, version_b=a, **base))
    refused(lambda: Match.objects.create(version_a=a, version_b=b, games_per_match=0, **base))
    refused(lambda: Match.objects.create(version_a=a, version_b=b, score_a=-1, **base))
    refused(lambda: Match.objects.create(version_a=a, version_b=b, status="running", **base))  # no lease
    match = create_match(a, b)
    Game.objects.create(match=match, number=1, white=a, black=b, winner="white", reason="escape")
    refused(lambda: Game.objects.create(match=match, number=1, white=b, black=a, winner="white", reason="x"))
    refused(lambda: Game.objects.create(match=match, number=2, white=a, black=a, winner="white", reason="x"))
    refused(lambda: Game.objects.create(match=match, number=3, white=a, black=b, winner="red", reason="x"))
    assert claim_match(match.pk, "w") is not None


def test_rating_constraints(pair):  # state: constraint
    a, b = pair
    Rating.objects.create(bot=a.bot, game="tafl9", elo=1500)
    refused(lambda: Rating.objects.create(bot=a.bot, game="tafl9", elo=1400))
    refused(lambda: Rating.objects.create(bot=b.bot, game="tafl9", elo=1500, games=2, wins=1))
    match = create_match(a, b)
    played = Game.objects.create(match=match, number=1, white=a, black=b, winner="white", reason="escape")
    change = dict(bot=a.bot, played=played, before=1500, after=1520, delta=20, k=40)
    RatingChange.objects.create(score=1, **change)
    refused(lambda: RatingChange.objects.create(score=1, **change))
    refused(lambda: RatingChange.objects.create(**{**change, "bot": b.bot, "score": 0.7}))


def test_tournament_constraints(player, pair):  # state: constraint
    tournament = create_tournament(player, name="T", game="tafl9")
    TournamentEntrant.objects.create(tournament=tournament, version=pair[0], seed=1)
    refused(lambda: TournamentEntrant.objects.create(tournament=tournament, version=pair[0], seed=2))
    refused(lambda: TournamentEntrant.objects.create(tournament=tournament, version=pair[1], seed=1))
    with pytest.raises(ValidationError, match="unknown game"):
        create_tournament(player, name="T", game="go")
