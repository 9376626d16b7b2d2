"""Issue 9, point 8: owners' secrets stay theirs. A bot's stderr and its protocol log reach its owner and
staff only, never a page kept for the public; private bots are not named on public tournament pages."""

from __future__ import annotations

import pytest

from api import public
from tests.support import make_bot, random_record, ready_version, record, report
from tournaments.services import create_match

from .conftest import client_for

WHITE_SECRET, BLACK_SECRET, DETAIL_SECRET = "W-SECRET-eval", "B-SECRET-eval", "D-SECRET-quote"


@pytest.fixture
def secret_game(versions):
    """A game whose record carries what the runner keeps: stderr tails, the protocol log and the detail."""
    reported = {**random_record("tafl9", 100), "winner": "white", "reason": "illegal-move",
                "detail": f"Z9-Z10 (stderr: {DETAIL_SECRET})",
                "stderr": {"white": f"thinking... {WHITE_SECRET}", "black": f"Traceback {BLACK_SECRET}"},
                "log": ["0.1 w> bgtp 1", f"3.0 w< info {WHITE_SECRET}", "3.2 b> go movetime=1000",
                        f"4.0 b< info {BLACK_SECRET}",
                        f"4.1 runner b: ignored line sent before go: {BLACK_SECRET}",
                        f"4.2 runner white failed before move 1: crash {WHITE_SECRET}",
                        "4.3 runner the game ends", f"... 3 more lines not kept {BLACK_SECRET}"],
                "shiny_new_runner_field": BLACK_SECRET}
    return report(create_match(*versions, games=1), [reported]).games.get()


def record_of(client, played) -> tuple[dict, bytes, object]:
    response = client.get(f"/api/games/{played.pk}/")
    assert response.status_code == 200, response.content
    return response.json()["record"], response.content, response


def assert_public(record: dict, body: bytes, played) -> None:
    assert b"SECRET" not in body
    assert not {"stderr", "log", "detail"} & set(record)
    assert (record["actions"], record["times"] if "times" in record else None) == (
        played.record["actions"], played.record.get("times"))
    assert (record["winner"], record["reason"]) == ("white", "illegal-move")


def test_the_public_record_carries_no_stderr_or_log(anon, grace, secret_game):
    for client in (anon, anon):  # built, then served from the kept page
        record, body, response = record_of(client, secret_game)
        assert_public(record, body, secret_game)
        assert response["Cache-Control"].startswith("public")
    record, body, _ = record_of(client_for(None), secret_game)
    assert_public(record, body, secret_game)
    kept = public._lookup(f"record:{secret_game.pk}")[1]  # what the cache keeps for the public
    assert kept is not None and b'"actions"' in kept.content and b"SECRET" not in kept.content
    response = anon.get(f"/api/games/{secret_game.pk}/record.txt")
    assert response.status_code == 200 and b"SECRET" not in response.content


def test_a_record_page_kept_before_the_secrets_were_left_out_is_never_served(anon, secret_game):
    from django.core.cache import cache

    generation, _ = public._lookup("warm-up")
    old = public.Page(b'{"record": {"stderr": {"white": "OLD-SECRET"}}}')
    cache.set(public._key(f"game:{secret_game.pk}", generation), old, 60)  # the former name of the page
    record, body, _ = record_of(anon, secret_game)
    assert_public(record, body, secret_game)


def test_each_owner_sees_their_own_bots_secrets_only(anon, ada, grace, root, secret_game):
    record_of(anon, secret_game)  # a public page is kept first: the owners must not be given it
    white, body, response = record_of(ada, secret_game)  # ada owns white ("alpha")
    assert white["stderr"] == {"white": f"thinking... {WHITE_SECRET}"}
    assert white["log"] == ["0.1 w> bgtp 1", f"3.0 w< info {WHITE_SECRET}",
                            f"4.2 runner white failed before move 1: crash {WHITE_SECRET}", "4.3 runner the game ends"]
    assert BLACK_SECRET.encode() not in body and "detail" not in white  # the loser's detail is the loser's
    assert response["Cache-Control"] == "private, no-cache"
    black, body, _ = record_of(grace, secret_game)
    assert black["stderr"] == {"black": f"Traceback {BLACK_SECRET}"}
    assert black["detail"] == secret_game.record["detail"]
    assert WHITE_SECRET.encode() not in body
    assert [line for line in black["log"] if "SECRET" in line] == [
        f"4.0 b< info {BLACK_SECRET}", f"4.1 runner b: ignored line sent before go: {BLACK_SECRET}"]
    staff, _, _ = record_of(root, secret_game)
    assert staff == secret_game.record
    # And the outsiders' kept page is still the public one.
    record, body, _ = record_of(anon, secret_game)
    assert_public(record, body, secret_game)


def test_an_owner_first_does_not_leave_a_page_for_the_public(anon, ada, secret_game):
    first, _, owner_response = record_of(ada, secret_game)
    assert "stderr" in first
    record, body, response = record_of(anon, secret_game)
    assert_public(record, body, secret_game)
    assert response["ETag"] != owner_response["ETag"]


def _tournament_with_a_private_bot(player, other_player):
    from tournaments.services import add_entrant, create_tournament, start_tournament

    hidden = ready_version(make_bot(player, "hush-hush", is_public=False))
    shown = ready_version(make_bot(other_player, "beta"))
    tournament = create_tournament(player, name="Cup", game="tafl9", double_round=False, games_per_pairing=1)
    add_entrant(tournament, hidden)
    add_entrant(tournament, shown)
    match = start_tournament(tournament)[0]
    report(match, [record("white", plies=9)])
    return tournament, hidden, shown


def test_private_bots_are_not_named_on_public_tournament_pages(anon, grace, ada, root, player, other_player):
    tournament, hidden, shown = _tournament_with_a_private_bot(player, other_player)
    pages = [f"/api/tournaments/{tournament.pk}/", f"/api/tournaments/{tournament.pk}/standings/",
             f"/api/tournaments/{tournament.pk}/crosstable/"]
    for client in (anon, grace):
        for url in pages:
            response = client.get(url)
            assert response.status_code == 200
            assert b"hush-hush" not in response.content and b"private bot" in response.content
            assert b"beta" in response.content
        standings = client.get(pages[1]).json()
        assert standings[0]["version"] == {"id": None, "bot_id": None, "bot_name": "private bot", "number": None}
        assert standings[0]["score"] == 1.0  # its results stay in the table
    for client in (ada, root):  # the owner and staff see the name
        for url in pages:
            assert b"hush-hush" in client.get(url).content
