"""Properties every game must have, checked on random playouts (hypothesis)."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import GAME_IDS, IllegalAction, get_game
from engines.record import record_of_play, verify_record

ACTION_CHARS = "abcdefghirsxABCDEFGHIQRB0123456789@:,=+!-"
PLAYOUT = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def playout(game_id, seed, *, check=lambda position, legal: None):
    """Play random legal actions to the end; returns the positions visited and the actions."""
    rng = random.Random(seed)
    game = get_game(game_id)
    position = game.initial()
    positions, actions = [position], []
    while position.outcome() is None:
        legal = position.legal_moves()
        assert legal, f"{position.text()} is not over but has no legal action"
        check(position, legal)
        action = rng.choice(legal)
        position = position.play(action)
        positions.append(position)
        actions.append(action)
        assert len(actions) <= game.max_plies, f"{game_id} game longer than its cap {game.max_plies}"
    assert position.legal_moves() == []
    return positions, actions


@pytest.mark.parametrize("game_id", GAME_IDS)
@PLAYOUT
@given(seed=st.integers(0, 2**32))
@pytest.mark.slow
def test_random_playouts_end_within_the_cap_and_round_trip(game_id, seed):
    game = get_game(game_id)

    def check(position, legal):
        assert legal == sorted(legal)
        assert len(set(legal)) == len(legal)
        text = position.text()
        assert game.parse(text).text() == text

    positions, _ = playout(game_id, seed, check=check)
    final = positions[-1]
    assert game.parse(final.text()).text() == final.text()
    assert final.outcome().winner in ("white", "black", "none")


@pytest.mark.parametrize("game_id", GAME_IDS)
@PLAYOUT
@given(seed=st.integers(0, 2**32), data=st.data())
@pytest.mark.slow
def test_every_listed_action_plays_and_nothing_else_does(game_id, seed, data):
    positions, _ = playout(game_id, seed)
    rng = random.Random(seed)
    for position in rng.sample(positions[:-1], min(6, len(positions) - 1)):
        before = position.text()
        legal = position.legal_moves()
        for action in legal:
            after = position.play(action)
            assert after is not position
            assert position.play(action.lower() if action.upper() == action else action.upper()).text() == after.text()
        assert position.text() == before, "play changed the position it was called on"
        listed = {a.lower() for a in legal}
        elsewhere = [a for p in positions for a in p.legal_moves()[:5]]
        candidates = data.draw(st.lists(st.text(ACTION_CHARS, min_size=1, max_size=12), max_size=5))
        for candidate in candidates + rng.sample(elsewhere, min(10, len(elsewhere))):
            if candidate.strip().lower() not in listed:
                with pytest.raises(IllegalAction):
                    position.play(candidate)
        assert position.text() == before, "a rejected action changed the position"


@pytest.mark.parametrize("game_id", GAME_IDS)
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_records_of_random_games_verify(game_id, seed):
    _, actions = playout(game_id, seed)
    record = record_of_play(get_game(game_id).initial(), actions)
    assert verify_record(record).text() == record["final"]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_perft_equals_the_generic_count(game_id):
    positions, _ = playout(game_id, 7)
    for position in positions[:: max(1, len(positions) // 5)][:5]:
        generic = sum(position.play(a).perft(0) for a in position.legal_moves())
        assert position.perft(1) == generic
        assert position.perft(2) == sum(count for count in position.divide(2).values())
        # perft runs each game's make/unmake core; count the same leaves through play and legal_moves
        assert position.perft(2) == sum(len(position.play(a).legal_moves()) for a in position.legal_moves())
