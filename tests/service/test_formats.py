"""Gauntlets and knockouts: their pairings, the knockout's tie-breaks and rounds, and bad settings refused."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from tests.support import refit, scored
from tournaments.gauntlet import gauntlet_table
from tournaments.knockout import bracket, slot_order
from tournaments.models import Match, Tournament
from tournaments.services import (
    add_entrant,
    change_tournament,
    claim_match,
    create_tournament,
    finish_match,
    remove_entrant,
    set_retired,
    start_tournament,
)

from .conftest import ready_version, record

pytestmark = pytest.mark.django_db


@pytest.fixture
def entrants(make_bot):
    return [ready_version(make_bot(name)) for name in ("ann", "bob", "cid", "dee", "eve")]


def make(player, versions, **options):
    tournament = create_tournament(player, name="Cup", game="tafl9", **options)
    for version in versions:
        add_entrant(tournament, version)
    return tournament


def settle(match, winners):
    token = claim_match(match.pk, "w")
    assert finish_match(match.pk, token, [record(w) for w in winners])


def open_matches(tournament):
    return list(Match.objects.filter(tournament=tournament, status=Match.Status.QUEUED).order_by("id"))


def test_slot_order_keeps_the_top_seeds_apart_until_the_end():
    assert slot_order(2) == [1, 2]
    assert slot_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert sorted(slot_order(16)) == list(range(1, 17))
    assert all(a + b == 17 for a, b in zip(slot_order(16)[0::2], slot_order(16)[1::2]))


# --- gauntlet ---------------------------------------------------------------------------------------

def test_gauntlet_plays_the_champion_against_every_other_entrant(player, entrants):
    ann, bob, cid, dee, _ = entrants
    tournament = make(player, [ann, bob, cid, dee], format="gauntlet", champion=bob, games_per_pairing=4)
    matches = start_tournament(tournament)
    assert [(m.round, m.version_a_id, m.version_b_id, m.games_per_match) for m in matches] == [
        (1, bob.pk, ann.pk, 4), (2, bob.pk, cid.pk, 4), (3, bob.pk, dee.pk, 4)]
    # bob wins both pairs against ann; against cid each side wins its White game; loses all to dee.
    settle(matches[0], ["white", "black", "white", "black"])
    settle(matches[1], ["white", "white", "white", "white"])
    settle(matches[2], ["black", "white", "black", "white"])
    table = gauntlet_table(tournament)
    assert table.champion.version_id == bob.pk
    assert [(row.opponent.version_id, row.wins, row.draws, row.losses, row.pair_scores) for row in table.rows] == [
        (ann.pk, 4, 0, 0, [2.0, 2.0]), (cid.pk, 2, 0, 2, [1.0, 1.0]), (dee.pk, 0, 0, 4, [0.0, 0.0])]
    overall = table.overall.elo
    assert (table.overall.games, table.overall.score) == (12, 6.0)
    assert overall.games == 12 and overall.score == 0.5 and overall.elo == 0.0
    assert 0 < overall.margin < float("inf")
    tournament.refresh_from_db()
    assert tournament.status == "finished"


def test_gauntlet_without_its_champion_is_refused_naming_the_field(player, entrants):
    ann, bob, cid = entrants[:3]
    unnamed = make(player, [ann, cid], format="gauntlet")
    with pytest.raises(ValidationError) as refused:
        start_tournament(unnamed)
    assert "no champion is named" in refused.value.message_dict["champion"][0]
    tournament = make(player, [ann, cid], format="gauntlet", champion=bob)
    with pytest.raises(ValidationError) as refused:
        start_tournament(tournament)
    assert "not entered" in refused.value.message_dict["champion"][0]
    add_entrant(tournament, bob)
    remove_entrant(tournament, bob)
    with pytest.raises(ValidationError):
        start_tournament(tournament)
    assert Match.objects.count() == 0 and set(Tournament.objects.values_list("status", flat=True)) == {"draft"}
    change_tournament(tournament, player, champion=ann)
    assert len(start_tournament(tournament)) == 1


def test_formats_refuse_odd_games_and_strays(player, entrants):
    for options, field in [({"format": "gauntlet", "champion": entrants[0], "games_per_pairing": 3},
                            "games_per_pairing"),
                           ({"format": "round_robin", "champion": entrants[0]}, "champion"),
                           ({"format": "knockout", "tiebreak_pairs": 99}, "tiebreak_pairs"),
                           ({"format": "knockout", "seeding": "random"}, "seeding"),
                           ({"format": "ladder"}, "format")]:
        with pytest.raises(ValidationError) as refused:
            create_tournament(player, name="X", game="tafl9", **options)
        assert field in refused.value.message_dict, options
    assert Tournament.objects.count() == 0


# --- knockout ---------------------------------------------------------------------------------------

def test_knockout_with_one_entrant_is_refused(player, entrants):
    tournament = make(player, entrants[:1], format="knockout")
    with pytest.raises(ValidationError) as refused:
        start_tournament(tournament)
    assert "entrants" in refused.value.message_dict
    assert Match.objects.count() == 0


def test_knockout_byes_go_to_the_top_seeds_and_rounds_follow_results(player, entrants):
    ann, bob, cid, dee, eve = entrants
    tournament = make(player, entrants, format="knockout", seeding="listed", games_per_pairing=2)
    first = start_tournament(tournament)
    # Five in a bracket of eight: seeds 1, 2, 3 have byes; 4 (dee) meets 5 (eve).
    assert [(m.round, m.version_a_id, m.version_b_id) for m in first] == [(1, dee.pk, eve.pk)]
    settle(first[0], ["black", "white"])  # eve wins both
    semis = open_matches(tournament)
    assert [(m.round, m.version_a_id, m.version_b_id) for m in semis] == [(2, ann.pk, eve.pk), (2, bob.pk, cid.pk)]
    settle(semis[0], ["white", "black"])  # ann 2-0
    assert open_matches(tournament) == [semis[1]]  # the final waits for the other semi-final
    settle(semis[1], ["black", "white"])  # cid 2-0
    final = open_matches(tournament)
    assert [(m.round, m.version_a_id, m.version_b_id) for m in final] == [(3, ann.pk, cid.pk)]
    settle(final[0], ["black", "white"])
    drawn = bracket(tournament)
    assert drawn.champion.version_id == cid.pk
    assert [len(r) for r in drawn.rounds] == [4, 2, 1]
    assert [p.note for p in drawn.rounds[0]] == ["bye", "", "bye", "bye"]
    tournament.refresh_from_db()
    assert tournament.status == "finished"


def test_knockout_tie_breaks_then_the_higher_seed(player, entrants):
    ann, bob = entrants[:2]
    tournament = make(player, [ann, bob], format="knockout", seeding="listed", tiebreak_pairs=2)
    (main,) = start_tournament(tournament)
    settle(main, ["white", "white"])  # 1-1
    (tiebreak,) = open_matches(tournament)
    assert (tiebreak.round, tiebreak.games_per_match) == (1, 2)
    settle(tiebreak, ["white", "white"])  # level again
    (second,) = open_matches(tournament)
    settle(second, ["none", "none"])  # level after both tie-break pairs: the higher seed advances
    assert open_matches(tournament) == []
    drawn = bracket(tournament)
    assert drawn.champion.version_id == ann.pk
    assert drawn.rounds[0][0].note == "level: the higher seed advances"
    assert Tournament.objects.get().status == "finished"


def test_knockout_decided_in_a_tie_break(player, entrants):
    ann, bob = entrants[:2]
    tournament = make(player, [ann, bob], format="knockout", seeding="listed", tiebreak_pairs=3)
    (main,) = start_tournament(tournament)
    settle(main, ["white", "white"])
    (tiebreak,) = open_matches(tournament)
    settle(tiebreak, ["black", "white"])  # bob wins both games of the pair
    assert open_matches(tournament) == []
    drawn = bracket(tournament)
    assert (drawn.champion.version_id, drawn.rounds[0][0].note) == (bob.pk, "after tie-breaks")


def test_knockout_seeds_by_fitted_rating(player, entrants, make_bot, other_player):
    ann, bob, cid, dee = entrants[:4]
    rival = ready_version(make_bot("rival", owner=other_player))  # rated games need another owner's bot
    scored(cid, rival, wins=3, losses=1)
    scored(bob, rival, wins=1, losses=3)
    fitted = refit()  # cid above bob; ann and dee never played: unrated, after them, as listed
    assert fitted[cid.bot_id].elo > fitted[bob.bot_id].elo
    assert fitted[ann.bot_id].elo is None and fitted[dee.bot_id].elo is None
    tournament = make(player, [ann, bob, cid, dee], format="knockout")
    matches = start_tournament(tournament)
    seeds = dict(tournament.entrants.values_list("version_id", "seed"))
    assert seeds == {cid.pk: 1, bob.pk: 2, ann.pk: 3, dee.pk: 4}
    assert [(m.version_a_id, m.version_b_id) for m in matches] == [(cid.pk, dee.pk), (bob.pk, ann.pk)]


def test_knockout_walkover_when_an_entrant_can_no_longer_play(player, entrants):
    ann, bob, cid, dee, eve = entrants
    tournament = make(player, entrants, format="knockout", seeding="listed", games_per_pairing=2)
    (first,) = start_tournament(tournament)  # seeds 1-3 have byes; dee (4) meets eve (5)
    set_retired(ann.bot, True)  # ann, seed 1, is retired before its semi-final against that winner
    settle(first, ["black", "white"])  # eve wins
    # eve advances by walkover; the other semi-final is queued as usual.
    assert [(m.round, m.version_a_id, m.version_b_id) for m in open_matches(tournament)] == [(2, bob.pk, cid.pk)]
    semi = bracket(tournament).rounds[1][0]
    assert (semi.winner.version_id, semi.matches) == (eve.pk, [])
    assert semi.note == "walkover: seed 1 could not play: its bot was retired"
    (other,) = open_matches(tournament)
    settle(other, ["white", "black"])  # bob 2-0
    (final,) = open_matches(tournament)
    assert (final.round, final.version_a_id, final.version_b_id) == (3, bob.pk, eve.pk)
    assert tournament.walkovers.get().loser.version_id == ann.pk
