"""Round-robins: Berger pairings, standings with tie-breaks, and a tournament played to the end."""

from __future__ import annotations

from collections import Counter

import pytest
from django.core.exceptions import ValidationError

from ratings.models import RatingChange
from tests.playing import play
from tests.support import ready_version, record, report
from tournaments.models import Game, Match, Tournament
from tournaments.pairings import berger_rounds, double_round
from tournaments.selectors import crosstable, match_list, standings
from tournaments.services import (
    add_entrant,
    cancel_tournament,
    create_tournament,
    remove_entrant,
    resume_tournament,
    start_tournament,
)


def test_berger_six_players_matches_the_printed_table():
    assert berger_rounds([1, 2, 3, 4, 5, 6]) == [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ]


@pytest.mark.parametrize("n", range(2, 12))
def test_berger_everyone_meets_once_with_balanced_colours(n):
    rounds = berger_rounds(list(range(n)))
    games = [pair for pairs in rounds for pair in pairs if None not in pair]
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    assert Counter(frozenset(pair) for pair in games) == {frozenset((i, j)): 1 for i in range(n) for j in range(i)}
    for pairs in rounds:
        seated = [p for pair in pairs for p in pair]
        assert len(seated) == len(set(seated))
    whites, blacks = Counter(w for w, _ in games), Counter(b for _, b in games)
    assert all(abs(whites[p] - blacks[p]) <= 1 for p in range(n))
    if n % 2:
        byes = Counter(p for pairs in rounds for pair in pairs if None in pair for p in pair if p is not None)
        assert byes == {p: 1 for p in range(n)}
    second = double_round(rounds)[len(rounds):]
    assert [[(b, w) for w, b in pairs] for pairs in second] == rounds


@pytest.mark.parametrize("n", range(3, 17))
def test_double_round_never_gives_three_games_running_with_one_colour(n):
    rounds = berger_rounds(list(range(n)))
    both = double_round(rounds)
    # FIDE's Berger tables: the first cycle's last two rounds trade places.
    assert both[: len(rounds)] == rounds[:-2] + [rounds[-1], rounds[-2]]
    colours = {p: "" for p in range(n)}
    for pairs in both:
        for white, black in pairs:
            if white is not None and black is not None:
                colours[white] += "W"
                colours[black] += "B"
    assert not [p for p, played in colours.items() if "WWW" in played or "BBB" in played]


pytestmark = pytest.mark.django_db


@pytest.fixture
def entrants(make_bot):
    return [ready_version(make_bot(name)) for name in ("ann", "bob", "cid", "dee")]


def make_tournament(player, versions, **options):
    tournament = create_tournament(player, name="Spring", game="tafl9", **options)
    for version in versions:
        add_entrant(tournament, version)
    return tournament


def settle(match, winners):
    report(match, [record(w) for w in winners])


def test_start_creates_the_berger_matches(player, entrants):
    tournament = make_tournament(player, entrants, games_per_pairing=2)
    matches = start_tournament(tournament)
    assert len(matches) == 12  # 6 pairings, double round
    first_cycle = {(m.version_a_id, m.version_b_id) for m in matches if m.round <= 3}
    second_cycle = {(m.version_b_id, m.version_a_id) for m in matches if m.round > 3}
    assert first_cycle == second_cycle
    assert all(m.games_per_match == 2 and not m.rated for m in matches)
    tournament.refresh_from_db()
    assert tournament.status == "running"
    with pytest.raises(ValidationError, match="not draft"):
        add_entrant(tournament, ready_version(entrants[0].bot))


def test_entrants_only_while_draft_and_checked(player, entrants, make_bot):
    tournament = make_tournament(player, entrants[:3])
    with pytest.raises(ValidationError, match="already entered"):
        add_entrant(tournament, entrants[0])
    with pytest.raises(ValidationError, match="plays shatra"):
        add_entrant(tournament, ready_version(make_bot("other", game="shatra")))
    remove_entrant(tournament, entrants[0])
    assert list(tournament.entrants.values_list("seed", flat=True)) == [1, 2]
    remove_entrant(tournament, entrants[1])
    with pytest.raises(ValidationError, match="at least two"):
        start_tournament(tournament)
    assert Match.objects.count() == 0


def test_a_cycle_of_three_stays_level_on_every_default_tie_break(player, entrants):
    ann, bob, cid, dee = entrants
    tournament = make_tournament(player, entrants, double_round=False, games_per_pairing=1)
    start_tournament(tournament)
    results = {  # (white, black): winner; white/black as the Berger table gives them
        frozenset((ann.pk, bob.pk)): ann, frozenset((cid.pk, dee.pk)): cid,
        frozenset((ann.pk, cid.pk)): cid, frozenset((bob.pk, dee.pk)): bob,
        frozenset((ann.pk, dee.pk)): ann, frozenset((bob.pk, cid.pk)): bob,
    }
    for match in Match.objects.filter(tournament=tournament):
        winner = results[frozenset((match.version_a_id, match.version_b_id))]
        settle(match, ["white" if winner.pk == match.version_a_id else "black"])
    table = standings(tournament)
    # ann, bob, cid all score 2; dee 0. Direct encounter among the three: 1 each; wins: 2 each; SB: ann beat
    # bob(2)+dee(0)=2, bob beat dee(0)+cid(2)=2, cid beat dee(0)+ann(2)=2; Koya (against the three with at
    # least half their points): 1 each. Level on all: they share the place, the seed only orders them.
    assert [(s.entrant.version_id, s.score, s.direct_encounter, s.wins, s.sonneborn_berger, s.koya, s.rank)
            for s in table] == [(ann.pk, 2.0, 1.0, 2, 2.0, 1.0, 1), (bob.pk, 2.0, 1.0, 2, 2.0, 1.0, 1),
                                (cid.pk, 2.0, 1.0, 2, 2.0, 1.0, 1), (dee.pk, 0.0, None, 0, 0.0, 0.0, 4)]
    assert table[0].tiebreaks == [("direct_encounter", 1.0), ("wins", 2), ("sonneborn_berger", 2.0), ("koya", 1.0)]
    tournament.refresh_from_db()
    assert tournament.status == "finished"


def test_players_level_on_every_tie_break_share_the_rank(player, entrants):
    ann, bob, cid = entrants[:3]
    tournament = make_tournament(player, [ann, bob, cid], double_round=False, games_per_pairing=2)
    start_tournament(tournament)
    for match in Match.objects.filter(tournament=tournament):
        settle(match, ["white", "white"])  # each side wins its white game: 1-1 in every pairing
    table = crosstable(tournament)
    assert [s.score for s in table.standings] == [2.0, 2.0, 2.0]
    assert all(cell == (1.0, 2) for row in table.cells.values() for cell in row.values())
    assert [s.rank for s in table.standings] == [1, 1, 1]


def test_sonneborn_berger_orders_two_level_on_direct_encounter_and_wins(player, entrants):
    ann, bob, cid, dee = entrants
    tournament = make_tournament(player, entrants, double_round=False, games_per_pairing=1)
    start_tournament(tournament)
    # dee beats ann; ann beats cid; bob beats cid; bob-dee draw; ann-bob draw; cid-dee draw.
    outcome = {frozenset((dee.pk, ann.pk)): dee, frozenset((ann.pk, cid.pk)): ann, frozenset((bob.pk, cid.pk)): bob,
               frozenset((bob.pk, dee.pk)): None, frozenset((ann.pk, bob.pk)): None, frozenset((cid.pk, dee.pk)): None}
    for match in Match.objects.filter(tournament=tournament):
        winner = outcome[frozenset((match.version_a_id, match.version_b_id))]
        settle(match, ["none" if winner is None else "white" if winner.pk == match.version_a_id else "black"])
    table = standings(tournament)
    scores = {s.entrant.version_id: (s.score, s.sonneborn_berger) for s in table}
    # bob 2 (SB 0.5*1.5 + 1*0.5 + 0.5*2 = 2.25), dee 2 (SB 1*1.5 + 0.5*2 + 0.5*0.5 = 2.75), ann 1.5, cid 0.5;
    # bob and dee drew (direct encounter 0.5 each) and won one game each.
    assert scores[bob.pk] == (2.0, 2.25) and scores[dee.pk] == (2.0, 2.75)
    assert {(s.direct_encounter, s.wins) for s in table if s.score == 2.0} == {(0.5, 1)}
    assert [s.entrant.version_id for s in table] == [dee.pk, bob.pk, ann.pk, cid.pk]


def test_direct_encounter_is_applied_again_to_a_subgroup_still_level(player, make_bot):
    e0, e1, e2, e3, e4, e5 = (ready_version(make_bot(name)) for name in ("ann", "bob", "cid", "dee", "eve", "fay"))
    tournament = make_tournament(player, [e0, e1, e2, e3, e4, e5], double_round=False, games_per_pairing=1)
    start_tournament(tournament)
    beat = {(e1, e0), (e0, e2), (e1, e3), (e4, e1), (e5, e1), (e3, e2), (e5, e2), (e5, e4)}  # (winner, loser)
    winners = {frozenset((won.pk, lost.pk)): won.pk for won, lost in beat}  # every other game drawn
    for match in Match.objects.filter(tournament=tournament):
        winner = winners.get(frozenset((match.version_a_id, match.version_b_id)))
        settle(match, ["none" if winner is None else "white" if winner == match.version_a_id else "black"])
    table = standings(tournament)
    # fay 4; ann, bob, dee, eve 2.5 each with SB 5.5 — level. Among the four, bob and eve score 2, ann and
    # dee 1. Between bob and eve alone eve won, so eve is ahead (bob's better seed no longer decides);
    # ann and dee drew each other, and are level on wins (1), SB and Koya too: they share the place.
    assert {s.entrant.version_id: (s.score, s.sonneborn_berger) for s in table if s.score == 2.5} == {
        v.pk: (2.5, 5.5) for v in (e0, e1, e3, e4)}
    assert [(s.entrant.version_id, s.direct_encounter, s.rank) for s in table] == [
        (e5.pk, None, 1), (e4.pk, 2.0, 2), (e1.pk, 2.0, 3), (e0.pk, 1.0, 4), (e3.pk, 1.0, 4), (e2.pk, None, 6)]
    assert (table[3].wins, table[3].koya) == (table[4].wins, table[4].koya) == (1, 1.5)


def _wins_against_sonneborn_berger(player, entrants, tiebreaks=None):
    """ann and bob level on 1.5 after drawing each other; ann has more wins, bob more Sonneborn–Berger and
    Koya. dee 2 first, cid 1 last. The standings, ann and bob's versions."""
    ann, bob, cid, dee = entrants
    options = {} if tiebreaks is None else {"tiebreaks": tiebreaks}
    tournament = make_tournament(player, entrants, double_round=False, games_per_pairing=1, **options)
    start_tournament(tournament)
    # ann–bob draw, ann beats cid, dee beats ann; bob draws cid and dee; cid–dee draw.
    outcome = {frozenset((ann.pk, bob.pk)): None, frozenset((ann.pk, cid.pk)): ann, frozenset((ann.pk, dee.pk)): dee,
               frozenset((bob.pk, cid.pk)): None, frozenset((bob.pk, dee.pk)): None, frozenset((cid.pk, dee.pk)): None}
    for match in Match.objects.filter(tournament=tournament):
        winner = outcome[frozenset((match.version_a_id, match.version_b_id))]
        settle(match, ["none" if winner is None else "white" if winner.pk == match.version_a_id else "black"])
    return crosstable(tournament)


def test_wins_come_before_sonneborn_berger_by_default(player, entrants):
    ann, bob, cid, dee = entrants
    table = _wins_against_sonneborn_berger(player, entrants)
    assert table.tiebreaks == ["direct_encounter", "wins", "sonneborn_berger", "koya"]
    lines = {s.entrant.version_id: s for s in table.standings}
    # SB: ann 0.5*1.5 + 1*1 = 1.75, bob 0.5*(1.5 + 1 + 2) = 2.25. Koya (against dee, ann, bob: at least half
    # their points; cid has 1 of 3): ann 0.5, bob 1.0.
    assert (lines[ann.pk].wins, lines[ann.pk].sonneborn_berger, lines[ann.pk].koya) == (1, 1.75, 0.5)
    assert (lines[bob.pk].wins, lines[bob.pk].sonneborn_berger, lines[bob.pk].koya) == (0, 2.25, 1.0)
    assert [(s.entrant.version_id, s.rank) for s in table.standings] == [
        (dee.pk, 1), (ann.pk, 2), (bob.pk, 3), (cid.pk, 4)]


@pytest.mark.parametrize("order", [["sonneborn_berger"], ["koya", "wins"]])
def test_the_organiser_picks_another_order(player, entrants, order):
    ann, bob, cid, dee = entrants
    table = _wins_against_sonneborn_berger(player, entrants, order)
    assert table.tiebreaks == order
    assert [s.entrant.version_id for s in table.standings] == [dee.pk, bob.pk, ann.pk, cid.pk]
    assert [name for name, _ in table.standings[0].tiebreaks] == order


def test_direct_encounter_waits_until_all_the_tied_have_met(player, entrants):
    ann, bob, cid, dee = entrants
    tournament = make_tournament(player, entrants, double_round=False, games_per_pairing=1)
    start_tournament(tournament)
    # Only ann–cid (ann wins) and bob–dee (bob wins) played: ann and bob level, and they have not met.
    for match in Match.objects.filter(tournament=tournament):
        pairing = {match.version_a_id, match.version_b_id}
        if pairing in ({ann.pk, cid.pk}, {bob.pk, dee.pk}):
            settle(match, ["white" if match.version_a_id in (ann.pk, bob.pk) else "black"])
    lines = {s.entrant.version_id: s for s in standings(tournament)}
    assert lines[ann.pk].direct_encounter is None and lines[bob.pk].direct_encounter is None
    assert lines[ann.pk].rank == lines[bob.pk].rank == 1  # level on wins, SB (0) and Koya (0) too


@pytest.mark.parametrize("order", [["dice"], ["wins", "wins"], "wins"])
def test_an_unknown_tie_break_is_refused_by_name(player, order):
    with pytest.raises(ValidationError) as refused:
        create_tournament(player, name="Odd", game="tafl9", tiebreaks=order)
    assert list(refused.value.message_dict) == ["tiebreaks"]
    assert not Tournament.objects.exists()


def test_crosstable_and_match_list_query_counts(player, entrants, django_assert_num_queries):
    tournament = make_tournament(player, entrants, double_round=False, games_per_pairing=1)
    start_tournament(tournament)
    for match in Match.objects.filter(tournament=tournament):
        settle(match, ["white"])
    with django_assert_num_queries(2):
        crosstable(tournament)
    with django_assert_num_queries(1):
        for match in match_list():
            _ = (match.version_a.bot.owner.username, match.version_b.bot.name, match.tournament.name)


def test_cancel_keeps_results_and_resume_requeues(admin_user, rivals):
    entrants = rivals("ann", "bob", "cid", "dee")  # rated: bots of four owners, in an official tournament
    tournament = make_tournament(admin_user, entrants, double_round=False, games_per_pairing=1, official=True)
    matches = start_tournament(tournament)
    settle(matches[0], ["white"])
    assert cancel_tournament(tournament) == 5
    assert Match.objects.get(pk=matches[0].pk).status == "finished"
    assert sum(s.score for s in standings(tournament) if s.score is not None) == 1.0  # None: yet to play
    assert RatingChange.objects.count() == 2  # official tournament: the one finished game counted
    assert resume_tournament(tournament) == 5
    tournament.refresh_from_db()
    assert tournament.status == "running"
    with pytest.raises(ValidationError, match="not cancelled"):
        resume_tournament(tournament)


def test_a_tournament_played_to_the_end_with_real_bots(admin_user, rivals):
    versions = rivals("ann", "bob", "cid")  # rated: bots of three owners, in an official tournament
    tournament = create_tournament(admin_user, name="Live", game="tafl9", games_per_pairing=2, double_round=False,
                                   time_control="move:2000", official=True)
    for version in versions:
        add_entrant(tournament, version)
    matches = start_tournament(tournament)
    assert len(matches) == 3
    for match in matches:
        played = play(match.pk)
        assert played.status == "finished", played.failure_reason
        assert played.score_a + played.score_b == 2
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert Game.objects.filter(match__tournament=tournament).count() == 6
    assert sum(s.score for s in standings(tournament)) == 6
    assert RatingChange.objects.count() == 12
    for game in Game.objects.all():
        assert game.record["winner"] == game.winner and game.plies == len(game.record["actions"])
    assert Tournament.objects.get(pk=tournament.pk).finished_at is not None
