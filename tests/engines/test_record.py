import json

import pytest

from engines import BadRecord, Outcome, get_game
from engines.record import make_record, record_of_play, replay, verify_record
from tests.engines.test_properties import playout


@pytest.fixture(params=["tafl9", "fidchell-1", "fidchell-2", "shatra"])
def finished(request):
    positions, actions = playout(request.param, 3)
    return record_of_play(get_game(request.param).initial(), actions)


def test_a_record_is_json_with_the_required_keys(finished):
    again = json.loads(json.dumps(finished))
    for key in ("game", "ruleset", "settings", "initial", "actions", "winner", "reason", "plies"):
        assert key in again
    assert again["plies"] == len(again["actions"])
    assert verify_record(again).text() == again["final"]
    assert replay(again).text() == again["final"]


def test_a_tampered_action_is_found_where_it_first_goes_wrong(finished):
    broken = dict(finished, actions=list(finished["actions"]))
    broken["actions"][3] = "zz-zz"
    with pytest.raises(BadRecord, match=r"action 4 \(zz-zz\)"):
        verify_record(broken)


def test_a_wrong_result_is_refused(finished):
    winner = {"white": "black", "black": "white", "none": "white"}[finished["winner"]]
    with pytest.raises(BadRecord, match="result"):
        verify_record(dict(finished, winner=winner))


@pytest.mark.parametrize(
    "change, message",
    [
        ({"game": "chess"}, "unknown game"),
        ({"ruleset": "old"}, "ruleset"),
        ({"initial": "garbage"}, "record header"),
        ({"settings": {"no_such_rule": True}}, "no_such_rule"),
        ({"plies": 1}, "plies"),
        ({"winner": "red"}, "winner"),
        ({"actions": "E3-H3"}, "actions"),
        ({"final": "x"}, "final position"),
    ],
)
def test_bad_records_name_the_fault(finished, change, message):
    with pytest.raises(BadRecord, match=message):
        verify_record(dict(finished, **change))


def test_a_record_cut_short_needs_a_runner_reason():
    start = get_game("tafl9").initial()
    action = start.legal_moves()[0]
    record = make_record(start, [action], Outcome("timeout", "black"), final=start.play(action))
    verify_record(record)
    with pytest.raises(BadRecord, match="not over"):
        verify_record(dict(record, reason="escape"))
