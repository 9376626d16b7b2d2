"""A bot that fails at start, or loses a game by a failure, shows its owner the last lines of its stderr beside the
reason (the version on its bot's page and in the API, the game on its page and in its record); nobody else sees
them, and whatever bytes the bot wrote come out bounded and as plain text."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from runner.match import STDERR_SHOWN_LINES, STDERR_SHOWN_WIDTH, stderr_tail
from tests.playing import play
from tests.support import ready_version, upload
from tournaments.models import Game
from tournaments.services import create_match, create_player, smoke_test_version, upload_version

pytestmark = pytest.mark.django_db

MISSING = "ModuleNotFoundError: No module named 'arena_no_such_module'"

# Thirty dull lines, then what a hostile or broken bot may write to stderr, then an exit before the handshake.
HOSTILE_BOT = b"""import sys
err = sys.stderr.buffer
for number in range(30):
    err.write(b"dull line %d\\n" % number)
err.write(b"<script>alert('owned')</script>\\n")
err.write(b"nul\\x00 bell\\x07 escape\\x1b[31m red\\r\\n")
err.write(b"not utf-8: \\xff\\xfe\\xc3\\n")
err.write(b"y" * 5000 + b"\\n")
err.flush()
sys.exit(1)
"""


def clients(owner):
    """API clients: the owner's, a stranger's and an anonymous one."""
    mine, theirs = APIClient(), APIClient()
    mine.force_authenticate(owner)
    theirs.force_authenticate(create_player("mallory", "mallory-pass-1"))
    return mine, theirs, APIClient()


def page(user, url: str) -> str:
    client = Client()
    if user is not None:
        client.force_login(user)
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def test_the_tail_is_bounded_and_plain_text():
    text = "\n".join(f"line {n}" for n in range(100)) + "\n\n" + "z" * 10_000 + "\nnul\x00 esc\x1b end\n"
    tail = stderr_tail(text).split("\n")
    assert len(tail) == STDERR_SHOWN_LINES and tail[0] == "line 82"  # blank lines are not counted
    assert max(len(line) for line in tail) == STDERR_SHOWN_WIDTH and tail[-2].endswith("…")
    assert tail[-1] == "nul\\x00 esc\\x1b end"


def test_a_version_failing_to_start_shows_its_owner_the_line_that_matters(make_bot, player):
    version = smoke_test_version(upload(make_bot("needs-numpy"), "missing_module_bot.py").pk)
    assert version.status == "rejected" and version.reject_reason.startswith("init-failed")
    assert MISSING not in version.reject_reason  # the reason alone hides it: hence the tail
    assert MISSING in version.reject_stderr.splitlines()[-1]

    mine, theirs, anonymous = clients(player)
    for path in (f"/api/versions/{version.pk}/", f"/api/bots/{version.bot_id}/"):
        bodies = [client.get(path).json() for client in (mine, theirs, anonymous)]
        seen = [body if "reject_stderr" in body else body["versions"][0] for body in bodies]
        assert MISSING in seen[0]["reject_stderr"], path
        assert seen[1]["reject_stderr"] == seen[2]["reject_stderr"] == "", path

    assert MISSING.replace("'", "&#x27;") in page(player, f"/bots/{version.bot_id}/")
    assert "No module named" not in page(None, f"/bots/{version.bot_id}/")


def test_hostile_stderr_is_shown_bounded_and_escaped(make_bot, player):
    hostile = upload_version(make_bot("hostile"), SimpleUploadedFile("hostile.py", HOSTILE_BOT))
    tail = smoke_test_version(hostile.pk).reject_stderr
    lines = tail.split("\n")
    assert len(lines) <= STDERR_SHOWN_LINES and max(map(len, lines)) <= STDERR_SHOWN_WIDTH
    assert "dull line 29" in tail and "dull line 0\n" not in tail
    assert "nul\\x00 bell\\x07 escape\\x1b[31m red\\x0d" in tail
    assert "not utf-8: \ufffd" in tail and lines[-1] == "y" * (STDERR_SHOWN_WIDTH - 1) + "…"
    assert not any(ord(char) < 32 and char != "\n" for char in tail)
    shown = page(player, f"/bots/{hostile.bot_id}/")
    assert "&lt;script&gt;alert(&#x27;owned&#x27;)&lt;/script&gt;" in shown and "<script>alert" not in shown


def test_a_game_lost_at_start_shows_the_losers_stderr_to_its_owner_only(make_bot, player, other_player):
    broken = ready_version(make_bot("needs-numpy"), "missing_module_bot.py")  # ready before it broke, say
    sound = ready_version(make_bot("sound", owner=other_player))
    play(create_match(broken, sound, games=1, time_control="move:2000").pk)
    game = Game.objects.get()
    assert (game.winner, game.reason) == ("black", "init-failed")

    owner_page = page(player, f"/games/{game.pk}/")
    assert 'data-stderr-side="white"' in owner_page and MISSING.replace("'", "&#x27;") in owner_page
    for reader in (other_player, None):  # the winner's owner and a visitor: not a line of it
        assert "data-stderr-side" not in page(reader, f"/games/{game.pk}/")
        assert "No module named" not in page(reader, f"/games/{game.pk}/")

    mine, theirs, anonymous = clients(player)
    assert MISSING in mine.get(f"/api/games/{game.pk}/").json()["record"]["stderr"]["white"]
    for client in (theirs, anonymous):
        assert "No module named" not in client.get(f"/api/games/{game.pk}/").content.decode()
