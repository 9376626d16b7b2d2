"""The opening suites' inputs tried as a stranger (and a careless operator or a broken worker) would: each bad one
is refused naming its field (a 400, a 404, exit 2) and changes nothing; what is accepted keeps the schema."""

from __future__ import annotations

import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client

from engines import get_game
from play import claimed
from ratings.models import VersionTest
from tests.postgresql import rerun_on_postgresql
from tests.support import make_bot, random_record, ready_version
from tournaments.models import Game, Match, OpeningSuite, Tournament
from tournaments.services import claim_match, create_match, finish_match
from tournaments.services.openings import create_suite
from tournaments.services.openings_balance import set_opening_retired

from .test_contract import assert_refused

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(connection.vendor == "postgresql", reason="already on PostgreSQL")
@pytest.mark.slow
def test_this_module_on_postgresql():
    """PostgreSQL refuses a NUL in any text it compares or stores, where SQLite takes it."""
    rerun_on_postgresql(__file__, "the hostile opening inputs", "arena_hostile_openings")


@pytest.fixture
def suites(db):
    tafl = create_suite("tafl9", name="tafl", count=2, plies=4, seed=1)
    shatra = create_suite("shatra", name="shatra", count=2, plies=4, seed=1)
    retired = create_suite("tafl9", name="retired", count=2, plies=4, seed=3)
    for opening in retired.openings.all():
        set_opening_retired(opening, True)
    return {"tafl": tafl, "shatra": shatra, "retired": retired}


def make_openings(*arguments: str) -> str:
    out = StringIO()
    call_command("make_openings", *arguments, stdout=out, stderr=StringIO())
    return out.getvalue()


# --- make_openings ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["a/b", "a\\b", "a\0b", "a\nb", "tab\there", "\u202eevil", "zero\u200bwidth",
                                  "line\u2028break", ".", "..", "x" * 10_000, "", "   "])
def test_a_suite_name_its_page_cannot_hold_exits_2_naming_it(name):
    with pytest.raises(CommandError) as refused:
        make_openings("tafl9", "--name", name, "--count", "2", "--plies", "2", "--seed", "1")
    assert refused.value.returncode == 2 and str(refused.value).startswith("name:")
    assert not OpeningSuite.objects.exists()


@pytest.mark.parametrize(("field", "value"), [("--count", "0"), ("--count", "-1"), ("--count", "1001"),
                                              ("--count", str(10**30)), ("--plies", "0"), ("--plies", "41"),
                                              ("--seed", str(2**63)), ("--seed", str(-(2**63) - 1))])
def test_numbers_out_of_range_exit_2_naming_them(field, value):
    numbers = {"--count": "2", "--plies": "2", "--seed": "1", field: value}
    with pytest.raises(CommandError) as refused:
        make_openings("tafl9", "--name", "n", *[part for pair in numbers.items() for part in pair])
    assert refused.value.returncode == 2 and str(refused.value).startswith(field.strip("-") + ":")
    assert not OpeningSuite.objects.exists()


def test_manage_py_make_openings_exits_2_on_a_number_it_cannot_read():
    """Through manage.py: argparse's refusal of "1e9" (not a whole number) is exit 2 naming the option."""
    ran = subprocess.run([sys.executable, "manage.py", "make_openings", "tafl9", "--name", "n", "--count", "1e9",
                          "--plies", "2", "--seed", "1"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 2 and "--count: invalid int value: '1e9'" in ran.stderr


# --- the suites' pages -----------------------------------------------------------------------------------------

ODD_NAMES = ["ü 名", "a b", "a?b", "a#b", "a%2Fb", "50%", "..x", "x" * 64]


def test_every_name_the_service_takes_is_linked_to_its_page(db):
    for number, name in enumerate(ODD_NAMES, start=1):
        create_suite("tafl9", name=name, count=1, plies=2, seed=number)
    client = Client()
    listing = client.get("/openings/tafl9/")
    assert listing.status_code == 200
    links = [line.split('href="')[1].split('"')[0] for line in listing.content.decode().splitlines()
             if "/openings/tafl9/" in line and "<td>" in line]
    assert len(links) == len(ODD_NAMES)
    for link in links:
        page = client.get(link.replace("&amp;", "&"))
        assert page.status_code == 200 and page.context["balance"].suite.name in ODD_NAMES


@pytest.mark.parametrize("path", ["a%00b", "%00", "a%2Fb", "..", "x" * 10_000, "%ff", "%C2%84", "tafl%0A"])
def test_an_address_naming_no_suite_is_the_site_s_404(suites, path):
    response = Client().get(f"/openings/tafl9/{path}/")
    assert response.status_code == 404 and response["Content-Type"].startswith("text/html")


# --- the API's suites ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["0", "-1", str(2**63), str(2**63 - 1), "99999999999999999999", "abc", "%00",
                                  "1%00"])
def test_an_id_naming_no_suite_is_a_404_in_the_error_shape(anon, suites, path):
    response = anon.get(f"/api/openings/{path}/")
    assert response.status_code == 404 and response["Content-Type"].startswith("application/json")
    assert isinstance(response.json()["detail"], list)


@pytest.mark.parametrize("query", ["game=%00", "game=chess", "game=" + "x" * 10_000, "page=0", "page=%00",
                                   "page_size=100000"])
def test_a_bad_filter_is_a_400_naming_it(anon, suites, query):
    assert_refused(anon.get(f"/api/openings/?{query}"), query.split("=")[0])


# --- a suite picked for a tournament or an SPRT ----------------------------------------------------------------

BAD_SUITES = [("shatra", {}), ("retired", {}), ("tafl", {"games_per_pairing": 3}),
              (999999, {}), (0, {}), (-1, {}),
              (2**63, {}), (2**63 - 1, {}), ("abc", {}), ([1], {}), ({"id": 1}, {}), (True, {}), (1.5, {}),
              ("1", {}), ("\0", {})]


@pytest.mark.parametrize(("suite", "extra"), BAD_SUITES)
def test_a_bad_suite_for_a_tournament_is_a_400_naming_it(ada, suites, suite, extra):
    data = {"name": "Midwinter", "game": "tafl9", "games_per_pairing": 2, **extra,
            "opening_suite": suites[suite].pk if suite in ("tafl", "shatra", "retired") else suite}
    assert_refused(ada.post("/api/tournaments/", data, format="json"), "opening_suite")
    assert not Tournament.objects.exists()


@pytest.mark.parametrize(("suite", "extra"), [case for case in BAD_SUITES if not case[1]])
def test_a_bad_suite_for_an_sprt_is_a_400_naming_it(ada, player, suites, suite, extra):
    bot = make_bot(player, "alpha")
    ready_version(bot), ready_version(bot)
    data = {"opening_suite": suites[suite].pk if suite in ("tafl", "shatra", "retired") else suite}
    assert_refused(ada.post(f"/api/bots/{bot.pk}/sprt/", data, format="json"), "opening_suite")
    assert not VersionTest.objects.exists() and not Match.objects.exists()


# --- a worker's report ----------------------------------------------------------------------------------------

@pytest.fixture
def match_of_suite(player, other_player, suites):
    versions = ready_version(make_bot(player, "alpha")), ready_version(make_bot(other_player, "beta"))
    return create_match(*versions, rated=False, games=2, opening_suite=suites["tafl"])


def _report(match, initial):
    record = {**random_record("tafl9", 3), "initial": initial}
    return claim_match(match.pk, "worker-1"), [record, record]


@pytest.mark.parametrize("initial", [float("nan"), float("inf"), 42, True, ["a"], {"a": 1}, "a\0b"])
def test_a_report_whose_initial_is_no_text_is_refused_and_requeued(match_of_suite, initial):
    token, records = _report(match_of_suite, initial)
    with pytest.raises(ValidationError) as refused:
        finish_match(match_of_suite.pk, token, records)
    assert "records" in refused.value.message_dict and "initial" in str(refused.value)
    assert not Game.objects.exists()
    # The worker's door: the bad records requeue the match (counted), as any other bad record.
    assert claimed.report(match_of_suite.pk, token, records) == claimed.REQUEUED
    assert Match.objects.get(pk=match_of_suite.pk).status == Match.Status.QUEUED and not Game.objects.exists()


def test_a_report_from_a_position_of_no_opening_stores_no_opening(match_of_suite, suites):
    initial = get_game("tafl9").initial()
    elsewhere = initial.play(initial.legal_moves()[5]).text()
    for position in (elsewhere, "x" * 1_000_000, "", suites["tafl"].openings.first().position + " "):
        match = create_match(match_of_suite.version_a, match_of_suite.version_b, rated=False, games=2,
                             opening_suite=suites["tafl"])
        token, records = _report(match, position)
        assert finish_match(match.pk, token, records)
        assert set(Game.objects.filter(match=match).values_list("opening", flat=True)) == {None}
    token, records = _report(match_of_suite, suites["tafl"].openings.first().position)
    assert finish_match(match_of_suite.pk, token, records)
    assert set(Game.objects.filter(match=match_of_suite).values_list("opening", flat=True)) == {
        suites["tafl"].openings.first().pk}
