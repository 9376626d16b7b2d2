"""Issue 21: record.txt says what a game was played for (Event), its tournament round (Round, in a tournament only)
and its number in the match (Game), the words the pages use; a record written before says the same once read."""

from __future__ import annotations

import random

from api.records import read_record_tags
from engines import get_game
from engines.record import record_of_play
from tournaments.models import Match

from .conftest import make_bot, ready_version


def a_record(game_id: str = "tafl9", seed: int = 1) -> dict:
    rng = random.Random(seed)
    position = initial = get_game(game_id).initial()
    actions = []
    while len(actions) < 6 and position.outcome() is None:
        actions.append(rng.choice(position.legal_moves()))
        position = position.play(actions[-1])
    record = record_of_play(initial, actions)
    record.update(winner="white", reason="resign")
    return record


def play_out(match: Match) -> Match:
    from tournaments.services import claim_match, finish_match

    token = claim_match(match.pk, "test-worker")
    assert finish_match(match.pk, token, [a_record(seed=n) for n in range(match.games_per_match)])
    return Match.objects.get(pk=match.pk)


def tags_of(client, game) -> dict[str, str]:
    response = client.get(f"/api/games/{game.pk}/record.txt")
    assert response.status_code == 200
    return read_record_tags(response.content.decode())


def test_a_tournament_game_names_its_event_round_and_number(anon, player, other_player):
    from tournaments.services import add_entrant, create_tournament, start_tournament

    cup = create_tournament(player, name='The "Spring" Cup', game="tafl9", games_per_pairing=2, double_round=False)
    for version in (ready_version(make_bot(player, "alpha")), ready_version(make_bot(other_player, "beta")),
                    ready_version(make_bot(player, "gamma"))):
        add_entrant(cup, version)
    start_tournament(cup)
    match = play_out(cup.matches.filter(round=2).first())
    second = match.games.get(number=2)
    tags = tags_of(anon, second)
    assert (tags["Event"], tags["Round"], tags["Game"], tags["Variant"]) == ('The "Spring" Cup', "2", "2", "tafl9")
    assert list(tags)[:6] == ["Event", "Variant", "Ruleset", "Match", "Round", "Game"]


def test_a_challenge_has_no_round(anon, player, other_player):
    from tournaments.services import create_match

    match = play_out(create_match(ready_version(make_bot(player, "alpha")),
                                  ready_version(make_bot(other_player, "beta")), rated=False, games=1))
    tags = tags_of(anon, match.games.get())
    assert tags["Event"] == "Challenge" and tags["Game"] == "1" and "Round" not in tags


def test_a_ladder_game_says_ladder(anon, player, other_player):
    from tournaments.services import create_match

    match = create_match(ready_version(make_bot(player, "alpha")), ready_version(make_bot(other_player, "beta")),
                         games=1, priority=Match.Priority.LADDER)
    assert tags_of(anon, play_out(match).games.get())["Event"] == "Ladder"


def test_an_old_record_reads_with_the_present_names():
    old = ('[Game "tafl9"]\n[Ruleset "tafl9/2026.1"]\n[Match "7"]\n[Round "2"]\n[White "a v1"]\n[Black "b v1"]\n'
           '[Result "1-0"]\n\n1. white E3-H3\n1-0\n')
    tags = read_record_tags(old)
    assert tags["Variant"] == "tafl9" and tags["Game"] == "2" and "Round" not in tags and tags["Match"] == "7"
    new = '[Event "Cup \\"A\\""]\n[Variant "tafl9"]\n[Round "3"]\n[Game "1"]\n\n1. white E3-H3\n'
    assert read_record_tags(new) == {"Event": 'Cup "A"', "Variant": "tafl9", "Round": "3", "Game": "1"}
