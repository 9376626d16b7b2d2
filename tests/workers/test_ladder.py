"""The ranked-ladder scheduler: priorities, owners and fair shares (pure function and on the database)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.support import finished_match, make_bot, ready_version, record, report
from workers.ladder import Entrant, choose_pairings


def entrant(version_id, owner, elo=1500.0, games=0, placements=10):
    return Entrant(version_id=version_id, bot_id=version_id, owner_id=owner, elo=elo, games=games,
                   placements=placements)


def test_never_pairs_two_bots_of_one_owner():
    pool = [entrant(1, owner=1), entrant(2, owner=1), entrant(3, owner=1)]
    assert choose_pairings(pool, 5, set(), Counter(), owner_cap=10, placement_matches=3) == []


def test_new_versions_are_placed_first():
    pool = [entrant(1, 1, games=0), entrant(2, 2, games=0), entrant(3, 3, games=50, placements=0),
            entrant(4, 4, games=50)]
    (a, b), = choose_pairings(pool, 1, set(), Counter(), owner_cap=10, placement_matches=3)
    assert a.version_id == 3


def test_prefers_the_closest_rating_among_opponents_with_few_games():
    pool = [entrant(1, 1, elo=1500), entrant(2, 2, elo=1900), entrant(3, 3, elo=1520), entrant(4, 4, elo=1100)]
    pairs = choose_pairings(pool, 2, set(), Counter(), owner_cap=10, placement_matches=0)
    assert {(a.version_id, b.version_id) for a, b in pairs} == {(1, 3), (2, 4)}


def test_a_prolific_owner_gets_only_a_fair_share():
    prolific = [entrant(i, owner=1) for i in range(1, 21)]
    others = [entrant(100 + i, owner=2 + i) for i in range(6)]
    load = Counter()
    pairs = choose_pairings(prolific + others, 8, set(), load, owner_cap=2, placement_matches=0)
    assert sum(1 for a, b in pairs if 1 in (a.owner_id, b.owner_id)) == 2
    assert len(pairs) == 4  # six other bots: two meet owner 1, the four left make two more pairs
    assert max(load.values()) <= 2


def test_busy_versions_and_full_owners_are_left_out():
    pool = [entrant(1, 1), entrant(2, 2), entrant(3, 3), entrant(4, 4)]
    busy = {1}
    load = Counter({2: 1})
    pairs = choose_pairings(pool, 4, busy, load, owner_cap=1, placement_matches=0)
    assert [(a.version_id, b.version_id) for a, b in pairs] == [(3, 4)]
    assert busy == {1, 3, 4}


@pytest.mark.django_db
def test_fill_ladder_queues_colour_swapped_pairs_between_owners(settings, player, other_player):
    from tournaments.models import Match
    from tournaments.services import create_player
    from workers.ladder import fill_ladder

    settings.ARENA = {**settings.ARENA, "LADDER_QUEUED_PER_GAME": 4, "LADDER_OWNER_SHARE": 0.5}
    third = create_player(username="edsger", password="dijkstra-1930")
    # Enough opponents for four matches of the player's bots: only the owner share keeps it to two.
    owners = [player, player, player, player, other_player, other_player, third, third]
    for number, owner in enumerate(owners):
        ready_version(make_bot(owner, f"ladder{number}"))
    created = fill_ladder("tafl9")
    matches = list(Match.objects.filter(pk__in=created).select_related("version_a__bot", "version_b__bot"))
    assert 1 <= len(matches) <= 4
    # Each owner's half share (2) is full after the player's two matches against the other owner's two
    # bots; the third owner's bots may meet neither: exactly two matches.
    assert len(matches) == 2
    for match in matches:
        assert match.version_a.bot.owner_id != match.version_b.bot.owner_id
        assert match.games_per_match % 2 == 0 and match.rated and match.tournament_id is None
    share = sum(1 for m in matches if player.pk in (m.version_a.bot.owner_id, m.version_b.bot.owner_id))
    assert share <= 2  # half of the four open ladder matches
    assert share == 2
    assert fill_ladder("tafl9") == [] or len(created) < 4  # topped up, never beyond the target
    assert fill_ladder("tafl9") == []  # the player's and the other owner's shares are full


@pytest.mark.django_db
def test_the_ladder_queues_only_what_the_workers_can_start_soon(settings, player, other_player):
    from tournaments.models import Match
    from tournaments.services import create_match, create_player
    from tournaments.services.matches import note_worker
    from workers.ladder import fill_ladders

    settings.ARENA = {**settings.ARENA, "LADDER_QUEUED_PER_WORKER": 2}
    owners = [player, other_player, create_player(username="edsger", password="dijkstra-1930"),
              create_player(username="hopper", password="hopper-1906")]
    versions = [ready_version(make_bot(owners[number % 4], f"room{number}")) for number in range(16)]
    # No worker seen yet: room for two queued matches, both tafl9's: the other games have no bots to pair,
    # so their shares go to the one game that has.
    created = fill_ladders()
    assert len(created) == 2
    assert set(Match.objects.filter(pk__in=created).values_list("priority", flat=True)) == {Match.Priority.LADDER}
    # A tournament or a player's request waiting takes none of the room: the ladder has its own share of the
    # workers, and fills its own room (2 less its 2 queued) however long the others' queue is.
    create_match(versions[0], versions[1], rated=False)
    assert fill_ladders() == []
    # Four workers seen lately: room for 4 * 2 - 2 queued = 6, all tafl9's (its target of 8 open allows it).
    for number in range(4):
        note_worker(f"box:{number}", isolation_problem="", plays_rated=True)  # each asked for work just now
    assert len(fill_ladders()) == 6
    assert Match.objects.filter(status="queued", priority=Match.Priority.LADDER).count() == 8
    assert fill_ladders() == []  # the target reached: nothing more


@pytest.mark.django_db
def test_fill_ladder_pairs_to_narrow_the_widest_interval(settings, player, other_player):
    from ratings.models import Rating
    from tournaments.models import Match
    from tournaments.services import create_player
    from workers.ladder import fill_ladder

    settings.ARENA = {**settings.ARENA, "LADDER_QUEUED_PER_GAME": 1, "LADDER_PLACEMENT_MATCHES": 0}
    owners = [player, other_player, create_player(username="edsger", password="dijkstra-1930"),
              create_player(username="hopper", password="hopper-1906"), player]
    bots = [make_bot(owner, f"info{number}") for number, owner in enumerate(owners)]
    versions = [ready_version(bot) for bot in bots]

    def played(a, b, games):  # all drawn: every rating stays at 1500, only who met whom differs
        finished_match(versions[a], versions[b], ["none"] * games)

    # 0, 1 and 2 have played one another a lot, 3 a little; 4, the player's like 0, nobody yet: the widest.
    played(0, 1, 100)
    played(1, 2, 100)
    played(0, 2, 100)
    played(3, 1, 10)
    assert set(Rating.objects.values_list("elo", flat=True)) == {1500.0}
    (match_id,) = fill_ladder("tafl9")
    match = Match.objects.select_related("version_a__bot", "version_b__bot").get(pk=match_id)
    assert bots[4] in {match.version_a.bot, match.version_b.bot}
    assert bots[0] not in {match.version_a.bot, match.version_b.bot}  # never the player's other bot
    assert match.rated and match.tournament_id is None
    # A new version of bot 1 has played nobody, whatever its bot did: once 4 is placed, it is the widest.
    report(match, [record("none")] * match.games_per_match)
    played(4, 2, 100)
    newer = ready_version(bots[1])
    (match_id,) = fill_ladder("tafl9")
    match = Match.objects.get(pk=match_id)
    assert newer.pk in {match.version_a_id, match.version_b_id}


@pytest.mark.django_db
def test_with_less_room_than_games_the_ladders_are_served_in_turn(settings, player, other_player):
    from tournaments.models import Match
    from tournaments.services import cancel_match
    from workers.ladder import fill_ladders

    settings.ARENA = {**settings.ARENA, "LADDER_QUEUED_PER_WORKER": 1}  # no worker seen: room for one match
    for game_id in ("tafl9", "fidchell-1", "shatra"):
        for number, owner in enumerate([player, other_player]):
            ready_version(make_bot(owner, f"{game_id}{number}", game=game_id))
    served = []
    for _ in range(6):  # each fill queues one match, which is gone (here cancelled) before the next fill
        created = fill_ladders()
        served += list(Match.objects.filter(pk__in=created).values_list("game", flat=True))
        for match_id in created:
            cancel_match(match_id)
    assert Counter(served) == {"tafl9": 2, "fidchell-1": 2, "shatra": 2}  # in turn, not the first game each time
