"""A client generated from the schema works (issue 12): openapi-python-client generates a Python package from
/api/schema/ of a live server, and a new player's whole journey runs through it, with no hand-written HTTP:
register, token, create a bot, upload a version, wait for it to be ready, ask for a match, read the leaderboard,
the game record (through its typed model) and its text, create, start and read a tournament. The worker's part
(the smoke test, playing the match) is done here between the calls, with the real sandbox, as a worker would."""

from __future__ import annotations

import importlib
import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import RANDOM_BOT, make_bot, ready_version

PACKAGE = "arena_client"


@pytest.fixture
def arena_client(live_server, tmp_path):
    """The generated package, imported from a temporary directory (and forgotten afterwards)."""
    bin_dir = Path(sys.executable).parent  # the generator formats its output with ruff, from the same venv
    generated = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--url", f"{live_server.url}/api/schema/",
         "--meta", "none", "--output-path", str(tmp_path / PACKAGE)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"})
    assert generated.returncode == 0, generated.stdout + generated.stderr
    assert "Warning" not in generated.stdout + generated.stderr, generated.stdout + generated.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def api(name: str):
    return importlib.import_module(f"{PACKAGE}.api.{name}")


def model(name: str):
    return getattr(importlib.import_module(f"{PACKAGE}.models"), name)


def until(read, done, seconds: float = 60.0):
    """Poll ``read()`` until ``done(answer)``, as a client waits for the server."""
    deadline = time.monotonic() + seconds
    while True:
        answer = read()
        if done(answer) or time.monotonic() > deadline:
            return answer
        time.sleep(0.2)


@pytest.mark.slow
def test_a_new_player_s_whole_journey_through_the_generated_client(arena_client, live_server, transactional_db,
                                                                    settings):
    from tests.playing import play
    from tournaments.services import create_player, smoke_test_version

    settings.ARENA_THROTTLE_RATES = {"uploads": "1000/hour", "writes": "10000/hour", "auth": "1000/hour"}
    opponent = ready_version(make_bot(create_player(username="grace", password="hopper-1906"), "beta"))
    anonymous = arena_client.Client(base_url=live_server.url, raise_on_unexpected_status=True)

    # register, then a token for the same account
    registered = api("auth.auth_register_create").sync(
        client=anonymous, body=model("RegisterRequest")(username="newcomer", password="tafl-fan-2026"))
    token = api("auth.auth_token_create").sync(
        client=anonymous, body=model("LoginRequest")(username="newcomer", password="tafl-fan-2026"))
    assert token.token == registered.token and token.player.username == "newcomer"
    me = arena_client.AuthenticatedClient(base_url=live_server.url, token=token.token, prefix="Token",
                                          raise_on_unexpected_status=True)
    assert api("players.players_me_retrieve").sync(client=me).username == "newcomer"

    # a bot and a version of it, ready once the smoke test (the worker's part) has run in the sandbox
    bot = api("bots.bots_create").sync(client=me, body=model("BotCreateRequest")(
        name="first", game=model("GameEnum").TAFL9, open_to_tournaments=True))
    upload = model("VersionUploadRequest")(file=arena_client.types.File(
        payload=io.BytesIO(RANDOM_BOT), file_name="bot.py", mime_type="text/x-python"))
    version = api("bots.bots_versions_create").sync(id=bot.id, client=me, body=upload)
    assert version.status == model("BotVersionStatusEnum").PENDING
    smoke_test_version(version.id)
    ready = until(lambda: api("versions.versions_retrieve").sync(id=version.id, client=me),
                  lambda v: v.status != model("BotVersionStatusEnum").PENDING)
    assert ready.status == model("BotVersionStatusEnum").READY, ready.reject_reason

    # a challenge, played by the worker, then its games, a record and the record as text
    match = api("matches.matches_create").sync(client=me, body=model("ChallengeRequest")(
        version_a=version.id, version_b=opponent.pk, games_per_match=2, time_control="move:500"))
    play(match.id)
    finished = until(lambda: api("matches.matches_retrieve").sync(id=match.id, client=me),
                     lambda m: m.status == model("MatchStatusEnum").FINISHED)
    assert finished.status == model("MatchStatusEnum").FINISHED, finished.failure_reason
    assert finished.score_a + finished.score_b == 2 and len(finished.games) == 2
    games = api("games.games_list").sync(client=me, match=match.id)
    game = api("games.games_retrieve").sync(id=games.results[0].id, client=me)
    record = game.record  # the typed GameRecord, field by field as the README writes a record
    assert isinstance(record, model("GameRecord"))
    assert record.actions and game.plies == record.plies == len(record.actions) == len(record.times)
    assert record.game == model("GameEnum").TAFL9 and record.winner.value == game.winner
    assert record.thinking.white >= 0 and record.duration >= record.thinking.white + record.thinking.black
    text = api("games.games_record_txt_retrieve").sync(id=game.id, client=me)
    assert text.startswith('[Event ') and '[Variant "tafl9"]' in text and f"\n{game.plies}. " in text

    # the leaderboard (the challenge was unrated: nobody is on it yet, and that reads fine)
    board = api("leaderboard.leaderboard_list").sync(game=model("LeaderboardListGame").TAFL9, client=anonymous)
    assert board.count == len(board.results)

    # a tournament: created, two entrants, started, read with its standings
    cup = api("tournaments.tournaments_create").sync(client=me, body=model("TournamentCreateRequest")(
        name="First cup", game=model("GameEnum").TAFL9, games_per_pairing=1, double_round=False,
        time_control="move:500"))
    for entrant in (version.id, opponent.pk):
        api("tournaments.tournaments_entrants_create").sync(
            id=cup.id, client=me, body=model("NewEntrantRequest")(version=entrant))
    started = api("tournaments.tournaments_start_create").sync(id=cup.id, client=me)
    assert started.status == model("TournamentStatusEnum").RUNNING
    read = api("tournaments.tournaments_retrieve").sync(id=cup.id, client=anonymous)
    assert [e.version.id for e in read.entrants] == [version.id, opponent.pk]
    standings = api("tournaments.tournaments_standings_list").sync(id=cup.id, client=anonymous)
    assert sorted(s.seed for s in standings) == [1, 2]

    # an error comes back as the documented Error model, not an exception
    error = api("bots.bots_create").sync(client=me, body=model("BotCreateRequest")(
        name="first", game=model("GameEnum").TAFL9))
    assert isinstance(error, model("Error")) and "name" in error.additional_properties
