"""Swiss tournaments through the services: rounds paired as the last finishes, byes, late entries, withdrawals,
an early end, standings with the Swiss tie-breaks, and the TRF of any tournament."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from tests.support import refit, scored
from tournaments.models import Match, SwissRound, Tournament
from tournaments.services import (
    add_entrant,
    claim_match,
    create_tournament,
    finish_match,
    remove_entrant,
    start_tournament,
)
from tournaments.swiss import trf
from tournaments.swiss.export import tournament_trf
from tournaments.swiss.history import table

from .conftest import ready_version, record

pytestmark = pytest.mark.django_db


@pytest.fixture
def field(make_bot):
    return [ready_version(make_bot(name)) for name in ("ann", "bob", "cid", "dee", "eve")]


def make_swiss(player, versions, rounds=3, **options):
    tournament = create_tournament(player, name="Swiss", game="tafl9", format="swiss", rounds=rounds, **options)
    for version in versions:
        add_entrant(tournament, version)
    return tournament


def settle(match, winners):
    token = claim_match(match.pk, "w")
    assert finish_match(match.pk, token, [record(w) for w in winners])


def open_round(tournament):
    return list(tournament.matches.filter(status=Match.Status.QUEUED).order_by("id"))


def test_each_round_is_paired_when_the_last_has_finished(player, field):
    tournament = make_swiss(player, field, bye_points=0.5)
    first = start_tournament(tournament)
    assert [m.round for m in first] == [1, 1] and all(m.games_per_match == 2 for m in first)
    assert SwissRound.objects.get(tournament=tournament, number=1).bye.seed == 5  # the lowest-ranked of five
    settle(first[0], ["white", "black"])  # A wins both games (white in game 1, black in game 2): 2-0
    assert open_round(tournament) == [first[1]]  # round 2 waits for the whole of round 1
    settle(first[1], ["white", "white"])  # each wins with white: 1-1, a drawn pairing
    second = open_round(tournament)
    assert [m.round for m in second] == [2, 2]
    byes = SwissRound.objects.filter(tournament=tournament).values_list("bye__seed", flat=True)
    assert len(set(byes)) == 2  # a bye at most once
    for match in second:
        settle(match, ["white", "black"])
    for match in open_round(tournament):
        settle(match, ["black", "black"])
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert SwissRound.objects.filter(tournament=tournament).count() == 3
    lines = table(tournament).lines
    assert sum(line.standing.score for line in lines) == 2 * 3 + 3 * 0.5  # two pairings a round, and a half-point bye
    assert [name for name, _ in lines[0].standing.tiebreaks] == [
        "Buchholz cut-1", "Buchholz", "Sonneborn-Berger", "wins", "direct encounter"]


def test_too_few_entrants_for_the_rounds_is_refused_naming_rounds(player, field):
    tournament = make_swiss(player, field[:3], rounds=3)
    with pytest.raises(ValidationError) as refused:
        start_tournament(tournament)
    assert "rounds" in refused.value.message_dict
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.DRAFT and not Match.objects.exists()


@pytest.mark.parametrize(("options", "field_name"), [
    ({"rounds": None}, "rounds"), ({"rounds": 0}, "rounds"), ({"games_per_pairing": 3}, "games_per_pairing"),
    ({"bye_points": 2}, "bye_points"), ({"format": "ladder"}, "format"),
])
def test_bad_swiss_settings_are_refused_by_field(player, options, field_name):
    settings = {"format": "swiss", "rounds": 3, **options}
    with pytest.raises(ValidationError) as refused:
        create_tournament(player, name="Bad", game="tafl9", **settings)
    assert field_name in refused.value.message_dict
    assert not Tournament.objects.exists()


def test_late_entry_and_withdrawal_between_rounds(player, field, make_bot):
    tournament = make_swiss(player, field[:4], rounds=3)
    first = start_tournament(tournament)
    late = ready_version(make_bot("fay"))
    add_entrant(tournament, late)  # running Swiss: paired from the next round
    remove_entrant(tournament, field[0])  # plays out round 1, then no more
    for match in first:
        settle(match, ["white", "white"])
    second = open_round(tournament)
    versions = {v for m in second for v in (m.version_a_id, m.version_b_id)}
    assert late.pk in versions and field[0].pk not in versions
    rows = {line.entrant.seed: line.cells for line in table(tournament).lines}
    assert rows[5][0].round.opponent is None and rows[5][0].round.points == 0  # the late entrant's missed round


def test_three_entrants_take_the_bye_in_turn(player, field):
    tournament = make_swiss(player, field[:3], rounds=2)
    for match in start_tournament(tournament):
        settle(match, ["white", "white"])
    for match in open_round(tournament):
        settle(match, ["white", "white"])
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    byes = list(SwissRound.objects.filter(tournament=tournament).values_list("bye__seed", flat=True))
    assert len(byes) == 2 and len(set(byes)) == 2


def test_everyone_met_ends_the_swiss_early_with_a_note(player, field):
    tournament = make_swiss(player, field[:4], rounds=3)
    first = start_tournament(tournament)
    Tournament.objects.filter(pk=tournament.pk).update(rounds=5)  # state: admin (more rounds than four can play)
    for match in first:
        settle(match, ["white", "black"])
    for _ in range(4):
        for match in open_round(tournament):
            settle(match, ["white", "black"])
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert "The Swiss ended before round" in table(tournament).note
    assert "absolute criterion" in table(tournament).note


def test_the_trf_of_a_swiss_reads_back_and_pairs_the_same_next_round(player, field):
    tournament = make_swiss(player, field, rounds=3)
    for match in start_tournament(tournament):
        settle(match, ["white", "white"])
    text = tournament_trf(tournament)
    report = trf.read(text)
    assert report.rounds == 3 and len(report.players) == 5
    pairing = trf.next_pairing(report)
    second = open_round(tournament)
    seeds = {e.version_id: e.seed for e in tournament.entrants.all()}
    assert sorted(pairing.boards) == sorted((seeds[m.version_a_id], seeds[m.version_b_id]) for m in second)


def test_the_trf_of_a_round_robin(player, field):
    tournament = create_tournament(player, name="RR", game="tafl9", double_round=False)
    for version in field[:4]:
        add_entrant(tournament, version)
    matches = start_tournament(tournament)
    settle(matches[0], ["white", "white"])  # 1-1: a drawn pairing
    text = tournament_trf(tournament)
    report = trf.read(text)
    assert report.rounds == 3, text
    assert sum(1 for p in report.players for r in p.results if r and r.code == "=") == 2, text


def test_a_late_entry_is_charged_its_rounds_to_come(player, field, make_bot, settings):
    tournament = make_swiss(player, field[:4], rounds=3)
    start_tournament(tournament)
    settings.ARENA = {**settings.ARENA, "OWNER_QUEUED_SECONDS": 1}  # the budget is spent by round 1 already
    with pytest.raises(ValidationError) as refused:
        add_entrant(tournament, ready_version(make_bot("fay")))
    assert "budget" in refused.value.message_dict and tournament.entrants.count() == 4


def rate(strongest_first, rival):
    """Fitted ratings in this order, from rated games against one ``rival`` (of another owner) and a real fit:
    the first wins most."""
    for n, version in enumerate(strongest_first):
        scored(version, rival, wins=len(strongest_first) - n, losses=n + 1)
    fitted = refit()
    elos = [fitted[version.bot_id].elo for version in strongest_first]
    assert elos == sorted(elos, reverse=True), elos


def test_pairing_numbers_follow_the_rating_at_the_start_and_for_a_late_entrant(player, field, make_bot, other_player):
    ann, bob, cid, dee, _ = field
    late = ready_version(make_bot("fay"))
    rate([cid, ann, late, bob], ready_version(make_bot("rival", owner=other_player)))  # dee unrated
    tournament = make_swiss(player, [ann, bob, cid, dee], rounds=3)
    start_tournament(tournament)
    seeds = dict(tournament.entrants.values_list("version_id", "seed"))
    assert seeds == {cid.pk: 1, ann.pk: 2, bob.pk: 3, dee.pk: 4}  # the initial ranking list: by rating
    add_entrant(tournament, late)  # rated between ann and bob
    seeds = dict(tournament.entrants.values_list("version_id", "seed"))
    assert seeds == {cid.pk: 1, ann.pk: 2, late.pk: 3, bob.pk: 4, dee.pk: 5}
    unrated = ready_version(make_bot("gus"))
    add_entrant(tournament, unrated)
    assert tournament.entrants.get(version=unrated).seed == 6  # unrated: last


def test_listed_swiss_gives_a_late_entrant_the_next_number(player, field, make_bot, other_player):
    late = ready_version(make_bot("fay"))
    rate([late], ready_version(make_bot("rival", owner=other_player)))  # rated, and still not placed by it
    tournament = make_swiss(player, field[:4], rounds=3, seeding="listed")
    start_tournament(tournament)
    add_entrant(tournament, late)
    assert tournament.entrants.get(version=late).seed == 5


@pytest.mark.parametrize(("points", "code"), [(0.0, "Z"), (0.5, "H")])
def test_a_late_entrants_missed_rounds_score_what_the_organiser_set(player, field, make_bot, points, code):
    tournament = make_swiss(player, field[:4], rounds=3, late_entry_points=points)
    first = start_tournament(tournament)
    late = ready_version(make_bot("fay"))
    add_entrant(tournament, late)
    for match in first:
        settle(match, ["white", "white"])
    second = {v for m in open_round(tournament) for v in (m.version_a_id, m.version_b_id)}
    bye = SwissRound.objects.get(tournament=tournament, number=2).bye
    assert late.pk in second or bye.version_id == late.pk  # present from round 2
    line = next(line for line in table(tournament).lines if line.entrant.version_id == late.pk)
    assert (line.cells[0].late, line.cells[0].round.points) == (True, points)
    late_line = next(row for row in tournament_trf(tournament).splitlines() if "fay" in row)
    assert late_line[89:99] == f"  0000 - {code}"


def test_late_entry_points_must_be_a_bye_value(player, field):
    with pytest.raises(ValidationError) as refused:
        make_swiss(player, field[:4], late_entry_points=0.25)
    assert "late_entry_points" in refused.value.message_dict


@pytest.mark.parametrize("format", ["round_robin", "gauntlet", "knockout"])
@pytest.mark.parametrize(("field_name", "value"), [("late_entry_points", 0.3), ("bye_points", 0.7)])
def test_no_format_stores_points_a_swiss_would_refuse(player, format, field_name, value):
    with pytest.raises(ValidationError) as refused:
        create_tournament(player, name="points", game="tafl9", format=format, **{field_name: value})
    assert field_name in refused.value.message_dict and not Tournament.objects.exists()
