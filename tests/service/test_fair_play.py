"""Issue 9, points 6 and 7 below the API: the name rule on the model, no path from a player's name, one rule
for rated pairings on every path (services, ladder, admin), and bounds checked when the settings load."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError

from tests.support import ready_version
from tournaments.bounds import settings_problems
from tournaments.models import Bot, Match
from tournaments.services import create_match, create_player

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def test_the_model_refuses_a_name_with_a_slash(player):
    for name in ("a/../b", "..", ".x", "a b", "x" * 33):
        with pytest.raises(ValidationError, match="not a bot name"):
            Bot(owner=player, game="tafl9", name=name).full_clean()
    Bot(owner=player, game="tafl9", name="ok_name-1.2").full_clean()


def test_a_bot_from_an_old_row_named_with_a_slash_gets_a_safe_name(make_bot):
    """A row from before the name rule: what the sandbox names its work directory after is made safe."""
    from tournaments.referee import load_version

    version = ready_version(make_bot("legacy"))
    Bot.objects.filter(pk=version.bot_id).update(name="a/../../b")  # state: damaged (a row from before the name rule)
    version.refresh_from_db()
    loaded = load_version(version)
    assert loaded.name == "a_.._.._b-v1"
    assert "/" not in loaded.name


def test_two_bots_of_one_owner_never_play_rated(make_bot, other_player):
    mine = [ready_version(make_bot(name)) for name in ("alpha", "gamma")]
    theirs = ready_version(make_bot("beta", owner=other_player))
    assert not create_match(*mine, rated=True).rated
    assert not create_match(mine[0], ready_version(mine[0].bot), rated=True).rated  # one bot's two versions
    assert create_match(mine[0], theirs, rated=True).rated


def test_match_clean_refuses_a_rated_match_of_one_owner(make_bot, other_player):
    a, b = (ready_version(make_bot(name)) for name in ("alpha", "gamma"))
    with pytest.raises(ValidationError, match="two bots of one owner"):
        Match(game="tafl9", version_a=a, version_b=b, rated=True, time_control="move:1000").clean()
    Match(game="tafl9", version_a=a, version_b=b, rated=False, time_control="move:1000").clean()


def test_the_ladder_never_queues_two_bots_of_one_owner(make_bot, player):
    from workers.ladder import fill_ladder

    for name in ("alpha", "gamma", "delta"):
        ready_version(make_bot(name))
    assert fill_ladder("tafl9") == []
    ready_version(make_bot("beta", owner=create_player("edsger", None)))
    created = Match.objects.filter(pk__in=fill_ladder("tafl9")).select_related("version_a__bot", "version_b__bot")
    assert created and all(m.rated and m.version_a.bot.owner_id != m.version_b.bot.owner_id for m in created)


def test_time_controls_are_stored_in_the_runners_canonical_form(pair):
    assert create_match(*pair, time_control=" clock:60000+0 ").time_control == "clock:60000+0"


def test_the_bounds_themselves_and_the_ladders_defaults_are_checked():
    arena = dict(settings.ARENA)
    assert settings_problems(arena) == []
    assert "ARENA_DEFAULT_TIME_CONTROL is outside the bounds" in settings_problems(
        {**arena, "DEFAULT_TIME_CONTROL": "move:20000"})[0]
    assert "ARENA_DEFAULT_TIME_CONTROL" in settings_problems({**arena, "DEFAULT_TIME_CONTROL": "soon"})[0]
    # The ladder plays whole colour-swapped pairs: 3 games a match means 4.
    assert "ARENA_DEFAULT_GAMES_PER_MATCH" in settings_problems(
        {**arena, "DEFAULT_GAMES_PER_MATCH": 3, "MAX_GAMES_PER_MATCH": 3})[0]
    assert "above" in settings_problems({**arena, "TIME_CONTROL_MOVE_MIN_MS": 20_000})[0]


@pytest.mark.parametrize("variable, value", [("ARENA_DEFAULT_TIME_CONTROL", "move:60000"),
                                             ("ARENA_MAX_GAMES_PER_MATCH", "1")])
def test_settings_outside_their_bounds_do_not_load(variable, value):
    env = {**os.environ, variable: value, "DJANGO_SETTINGS_MODULE": "config.settings"}
    result = subprocess.run([sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and variable in result.stderr


def test_look_alike_names_are_refused_by_the_database_itself(player):
    """The services check first, with a clear message; the unique compared forms make the database refuse a
    look-alike too, on paths that skip the services (the admin, createsuperuser) and in a race between two."""
    from django.contrib.auth import get_user_model
    from django.db import IntegrityError, transaction

    create_player(username="admin", password="operator-pass-2")
    with pytest.raises(IntegrityError), transaction.atomic():
        get_user_model().objects.create_user("\u0430dmin")  # a Cyrillic а
    # state: constraint (the database refuses look-alikes)
    Bot.objects.create(owner=player, game="tafl9", name="ragnar")
    with pytest.raises(IntegrityError), transaction.atomic():
        Bot.objects.create(owner=player, game="tafl9", name="Rag-nar")  # state: constraint
    Bot.objects.create(owner=player, game="shatra", name="Rag-nar")  # state: constraint; another game's bots are apart


def test_a_renamed_player_frees_the_old_name_and_holds_the_new(db):
    user = create_player(username="olaf", password="a-long-pass-42")
    user.username = "erik"
    user.save()  # state: admin (a rename in the admin)
    create_player(username="OLAF", password="a-long-pass-42")
    with pytest.raises(ValidationError, match="too like 'erik'"):
        create_player(username="Erik.", password="a-long-pass-42")


def test_a_login_does_not_rewrite_the_name_key(django_assert_num_queries):
    user = create_player(username="logs-in-often", password="a-long-pass-42")
    with django_assert_num_queries(1):  # the last_login update alone
        user.save(update_fields=["last_login"])  # state: admin (a login saves the user)
    user.username = "renamed"  # a rename through update_fields keeps the key
    user.save(update_fields=["username"])  # state: admin
    from tournaments.models import PlayerName
    assert PlayerName.objects.get(user=user).key == "renarned"  # m reads as rn
