"""Who may see a bot is written once (``tournaments.selectors``): ``may_see_bot`` for one loaded bot and
``visible_bot_q`` for the database. They agree for every kind of reader and every state of a bot, directly and
through a version; the leaderboard's filter is the bots everyone sees that are not retired."""

import itertools

import pytest
from django.contrib.auth.models import AnonymousUser

from ratings.selectors import on_leaderboard_q
from tournaments.models import Bot, BotVersion
from tournaments.selectors import is_insider, may_see_bot, seen_by_everyone, visible_bot_q
from tournaments.services import create_player, set_retired

from .conftest import upload

STATES = list(itertools.product((True, False), (False, True)))  # (public, retired)


@pytest.fixture
def bots(make_bot, player):
    """A bot of ``player`` in each state, each with an uploaded version."""
    made = []
    for public, retired in STATES:
        bot = set_retired(make_bot(f"bot-{public}-{retired}".lower(), is_public=public), retired)
        upload(bot)
        made.append(bot)
    return made


@pytest.fixture
def readers(player, other_player):
    staff = create_player(username="operator", password="operator-pass-1", is_staff=True)
    idle_owner = type(player).objects.get(pk=player.pk)
    idle_owner.is_active = False  # deactivated while signed in: still the owner, to both forms of the rule
    return {"nobody": None, "anonymous": AnonymousUser(), "owner": player, "other player": other_player,
            "staff": staff, "owner (inactive)": idle_owner}


def test_the_selector_and_its_sql_twin_agree_for_every_reader_and_state(bots, readers):
    for (who, user), bot in itertools.product(readers.items(), bots):
        bot = Bot.objects.get(pk=bot.pk)
        one = may_see_bot(user, bot)
        assert Bot.objects.filter(visible_bot_q(user), pk=bot.pk).exists() == one, (who, bot.name)
        through_version = BotVersion.objects.filter(visible_bot_q(user, "bot__"), bot=bot).exists()
        assert through_version == one, (who, bot.name)
        # The rule itself, spelled out: public bots (retired or not) for everyone, private ones for insiders.
        assert one == (bot.is_public or who in ("owner", "staff", "owner (inactive)")), (who, bot.name)
        assert is_insider(user) == (who == "staff")


def test_the_leaderboard_lists_the_bots_everyone_sees_that_are_not_retired(bots):
    for bot in bots:
        bot = Bot.objects.get(pk=bot.pk)
        listed = BotVersion.objects.filter(on_leaderboard_q("bot__"), bot=bot).exists()
        assert listed == (seen_by_everyone(bot) and not bot.is_retired), bot.name
