"""What a bot writes cannot break storage: NUL bytes on PostgreSQL, which refuses them in text and jsonb.

The tests below need PostgreSQL. On another database (the SQLite pass) ``test_this_module_on_postgresql``
runs this module again in a pytest of its own on a temporary PostgreSQL database; without PostgreSQL
they skip on a laptop and fail when ``CI`` is set.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from ratings.models import Rating, RatingChange
from tests.playing import play
from tests.postgresql import ROOT, rerun_on_postgresql
from tests.support import pass_smoke_test
from tournaments.models import BotVersion, Game
from tournaments.services import create_match, smoke_test_version, upload_version
from tournaments.services.matches import claim_match, finish_match

pytestmark = pytest.mark.django_db
on_postgresql = pytest.mark.skipif(connection.vendor != "postgresql",
                                   reason="PostgreSQL only: run by test_this_module_on_postgresql")

# the shared random bot, with NUL and other control bytes on stderr and in an info line before each move
NUL_BOT = (ROOT / "tests" / "bots" / "random_bot.py").read_text().replace(
    '        print("move", random.choice(legal), flush=True)',
    '        print("nul\\x00on stderr \\x1b[0m", file=sys.stderr, flush=True)\n'
    '        print("info nul\\x00in info \\x07", flush=True)\n'
    '        print("move", random.choice(legal), flush=True)')
# answers newgame with an error line holding a NUL: the smoke test rejects it quoting that line
NUL_REASON_BOT = (ROOT / "tests" / "bots" / "random_bot.py").read_text().replace(
    '        print("ready", flush=True)', '        print("error bad\\x00byte", flush=True)')


@pytest.mark.skipif(connection.vendor == "postgresql", reason="already on PostgreSQL: the tests run here")
@pytest.mark.slow
def test_this_module_on_postgresql():
    rerun_on_postgresql(__file__, "the storage tests", "arena_bot_text")


def upload(make_bot, name: str, source: str, ready: bool = True) -> BotVersion:
    """Each bot with an owner of its own: two bots of one owner never play rated."""
    from tournaments.services import create_player

    owner = create_player(f"{name}-owner", None)
    version = upload_version(make_bot(name, owner=owner), SimpleUploadedFile(f"{name}.py", source.encode()))
    if ready:
        pass_smoke_test(version)
    return BotVersion.objects.select_related("bot").get(pk=version.pk)


def rated_once(match, games: int) -> None:
    """Each bot's rating counts every game of the match once, with one change per bot and game."""
    bots = (match.version_a.bot_id, match.version_b.bot_id)
    assert sorted(Rating.objects.filter(bot_id__in=bots).values_list("games", flat=True)) == [games, games]
    assert RatingChange.objects.filter(played__match=match).count() == 2 * games


@on_postgresql
def test_a_bot_writing_nul_bytes_plays_a_scored_match(make_bot):
    nul = upload(make_bot, "nulbot", NUL_BOT)
    other = upload(make_bot, "plain", (ROOT / "tests" / "bots" / "random_bot.py").read_text())
    match = play(create_match(nul, other, games=2, time_control="move:2000").pk)
    assert match.status == "finished" and match.score_a + match.score_b == 2.0, match.failure_reason
    games = list(Game.objects.filter(match=match))
    assert len(games) == 2
    for game in games:
        side = "white" if game.white_id == nul.pk else "black"
        assert "nul\\x00on stderr \\x1b[0m\n" in game.record["stderr"][side]
        assert any(line.endswith("< info nul\\x00in info \\x07") for line in game.record["log"])
        assert "dropped" not in game.record
    rated_once(match, 2)
    nul.refresh_from_db()
    assert (nul.status, nul.is_disabled) == ("ready", False)


@on_postgresql
def test_a_smoke_test_reason_with_a_nul_is_stored(make_bot):
    version = upload(make_bot, "nulreason", NUL_REASON_BOT, ready=False)
    version = smoke_test_version(version.pk)
    assert version.status == "rejected"
    assert "init-failed: error bad\\x00byte" in version.reject_reason


@on_postgresql
def test_a_record_the_database_refuses_is_stored_without_the_bot_texts(make_bot):
    # as if a runner had not made its texts safe: PostgreSQL refuses the NUL, the games are stored
    # without what the bots wrote, and the match is scored and rated once
    plain = (ROOT / "tests" / "bots" / "random_bot.py").read_text()
    one, two = upload(make_bot, "one", plain), upload(make_bot, "two", plain + "# two\n")
    match = create_match(one, two, games=2)
    token = claim_match(match.pk, "test")
    raw = {"game": "tafl9", "winner": "white", "reason": "resign", "plies": 0, "actions": [],
           "detail": "a\x00b", "stderr": {"white": "nul\x00", "black": ""}, "log": ["w< info \x00"]}
    assert finish_match(match.pk, token, [raw, {**raw, "winner": "black"}])
    match.refresh_from_db()
    assert (match.status, match.score_a, match.score_b) == ("finished", 2.0, 0.0)
    for game in Game.objects.filter(match=match):
        assert not {"detail", "stderr", "log"} & set(game.record)
        assert "not stored" in game.record["dropped"]
        assert game.reason == "resign"
    rated_once(match, 2)
