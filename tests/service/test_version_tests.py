"""The SPRT of a new version against the previous one: its matches, the pairs it counts, the verdict it reaches
by itself, and the gate that keeps a new version off the ladder until it passes."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from ratings.models import VersionTest
from ratings.sprt import NORMALIZED, Hypotheses, expected_pairs, llr
from tests.support import play_test_match as play_next  # the oldest queued match, the candidate's points
from tests.support import ready_version, record, upload
from tournaments.models import Match
from tournaments.services import (
    claim_match,
    fail_match,
    finish_match,
    forecast_version_test,
    request_version_test,
    set_version_disabled,
    stop_version_test,
)

WIDE = {"elo0": 0.0, "elo1": 200.0}  # a clean sweep passes after 8 pairs, a whitewash fails after 5


@pytest.fixture
def versions(make_bot):
    """A bot with an old and a new ready version."""
    bot = make_bot("alpha")
    return ready_version(bot), ready_version(bot)


def test_a_request_queues_unrated_pairs_of_the_new_version_against_the_old(versions, settings):
    old, new = versions
    test = request_version_test(new.bot)
    assert (test.candidate, test.baseline, test.state) == (new, old, VersionTest.State.RUNNING)
    assert (test.elo0, test.elo1, test.alpha, test.beta, test.gate) == (0.0, 10.0, 0.05, 0.05, False)
    matches = list(test.matches.all())
    assert len(matches) == settings.ARENA["SPRT_OPEN_MATCHES"]
    for match in matches:
        assert (match.version_a, match.version_b, match.rated, match.tournament) == (new, old, False, None)
        assert match.games_per_match % 2 == 0 and match.status == Match.Status.QUEUED


def test_each_finished_match_counts_its_pairs_and_updates_the_llr(versions):
    old, new = versions
    test = request_version_test(new.bot)
    play_next(test, (1.0, 0.5))
    play_next(test, (0.0, 0.0))
    play_next(test, (0.5, 0.5))
    assert test.pentanomial == [1, 0, 1, 1, 0]
    assert (test.wins, test.draws, test.losses) == (1, 3, 2)
    assert test.llr == pytest.approx(llr([1, 0, 1, 1, 0], Hypotheses()))
    # The test keeps its matches coming: as many open as before.
    assert test.matches.filter(status=Match.Status.QUEUED).count() == 4


def test_a_clean_sweep_passes_and_the_test_stops_itself(versions):
    old, new = versions
    test = request_version_test(new.bot, **WIDE)
    for _ in range(7):
        play_next(test, (1.0, 1.0))
    assert test.state == VersionTest.State.RUNNING
    # A match of the test already running when it stops is played out but counts no more.
    straggler = test.matches.filter(status=Match.Status.QUEUED).order_by("-pk").first()
    straggler_token = claim_match(straggler.pk, "late")
    play_next(test, (1.0, 1.0))
    assert test.state == VersionTest.State.PASSED and test.finished_at is not None
    assert test.pentanomial == [0, 0, 0, 0, 8] and test.llr >= Hypotheses(**WIDE).upper
    assert not test.matches.filter(status=Match.Status.QUEUED).exists()  # the leftovers are cancelled
    assert test.matches.filter(status=Match.Status.CANCELLED).count() == 2
    assert finish_match(straggler.pk, straggler_token, [record("black"), record("white")])
    test.refresh_from_db()
    assert test.pentanomial == [0, 0, 0, 0, 8] and test.state == VersionTest.State.PASSED


def test_a_whitewash_fails(versions):
    old, new = versions
    test = request_version_test(new.bot, **WIDE)
    for _ in range(5):
        play_next(test, (0.0, 0.0))
    assert test.state == VersionTest.State.FAILED
    assert test.llr <= Hypotheses(**WIDE).lower


def test_a_test_without_a_verdict_ends_inconclusive_at_the_pair_cap(versions, settings):
    settings.ARENA = {**settings.ARENA, "SPRT_MAX_PAIRS": 3}
    old, new = versions
    test = request_version_test(new.bot)
    assert test.max_pairs == 3 and test.matches.count() == 3  # never more matches than the pairs it may play
    for _ in range(3):
        play_next(test, (1.0, 0.0))
    # The cap ended it, not the evidence: neither a pass nor a fail.
    assert test.state == VersionTest.State.INCONCLUSIVE and "cap" in test.note
    assert test.pentanomial == [0, 0, 3, 0, 0]


def test_a_failed_match_is_replaced(versions):
    old, new = versions
    test = request_version_test(new.bot)
    match = test.matches.first()
    assert fail_match(match.pk, "the runner gave up")
    assert test.matches.filter(status=Match.Status.QUEUED).count() == 4


def test_disabling_a_version_stops_its_tests(versions):
    old, new = versions
    test = request_version_test(new.bot)
    set_version_disabled(old, True)
    test.refresh_from_db()
    assert test.state == VersionTest.State.STOPPED and "disabled" in test.note
    assert not test.matches.filter(status=Match.Status.QUEUED).exists()


def test_the_gate_keeps_a_new_version_off_the_ladder_until_it_passes(versions, make_bot, other_player):
    from workers.ladder import ladder_pool

    old, new = versions
    ready_version(make_bot("rival", owner=other_player))

    def ladder_version():
        return next(e.version_id for e in ladder_pool("tafl9") if e.bot_id == new.bot_id)

    assert ladder_version() == new.pk  # no test: the newest version plays
    test = request_version_test(new.bot, gate=True, **WIDE)
    assert ladder_version() == old.pk  # under a gated test: the old one keeps its place
    for _ in range(8):
        play_next(test, (1.0, 1.0))
    assert test.state == VersionTest.State.PASSED
    assert ladder_version() == new.pk


def test_a_failed_gate_keeps_the_old_version_and_the_next_one_is_tested_against_it(versions):
    from workers.ladder import ladder_pool

    old, new = versions
    test = request_version_test(new.bot, gate=True, **WIDE)
    for _ in range(5):
        play_next(test, (0.0, 0.0))
    assert test.state == VersionTest.State.FAILED
    assert [e.version_id for e in ladder_pool("tafl9")] == [old.pk]
    newer = ready_version(new.bot)
    retest = request_version_test(new.bot)
    assert (retest.candidate, retest.baseline) == (newer, old)  # not the version that failed its gate


def test_an_ungated_test_leaves_the_ladder_alone(versions):
    from workers.ladder import ladder_pool

    old, new = versions
    request_version_test(new.bot)
    assert [e.version_id for e in ladder_pool("tafl9")] == [new.pk]


@pytest.mark.parametrize(("arguments", "field"), [
    ({"elo0": 5.0, "elo1": 0.0}, "elo1"),
    ({"elo1": 500.0}, "elo1"),
    ({"alpha": 0.5}, "alpha"),
    ({"beta": -1}, "beta"),
    ({"version_id": 10**9}, "version"),
    ({"elo_model": "bayes"}, "elo_model"),
    ({"max_pairs": 50}, "max_pairs"),
    ({"max_pairs": 12001}, "max_pairs"),  # above ARENA_SPRT_MAX_PAIRS
])
def test_bad_requests_name_the_field_and_change_nothing(versions, arguments, field):
    old, new = versions
    with pytest.raises(ValidationError) as error:
        request_version_test(new.bot, **arguments)
    assert field in error.value.message_dict
    assert not VersionTest.objects.exists() and not Match.objects.exists()


def test_a_bot_with_one_version_cannot_be_tested(make_bot):
    only = ready_version(make_bot("solo"))
    with pytest.raises(ValidationError) as error:
        request_version_test(only.bot)
    assert "version" in error.value.message_dict and "one version" in str(error.value)


def test_the_oldest_version_has_nothing_to_play(versions):
    old, new = versions
    with pytest.raises(ValidationError) as error:
        request_version_test(new.bot, version_id=old.pk)
    assert "earlier" in error.value.message_dict["version"][0]


def test_one_running_test_per_version(versions):
    old, new = versions
    request_version_test(new.bot)
    with pytest.raises(ValidationError) as error:
        request_version_test(new.bot)
    assert "already has a running SPRT" in error.value.message_dict["version"][0]
    assert VersionTest.objects.count() == 1 and Match.objects.count() == 4


def test_a_version_not_ready_cannot_be_tested(versions):
    old, new = versions
    pending = upload(new.bot)  # uploaded, its smoke test not yet run
    with pytest.raises(ValidationError) as error:
        request_version_test(new.bot, version_id=pending.pk)
    assert "not ready" in error.value.message_dict["version"][0]


def test_a_test_may_ask_for_a_smaller_cap_and_ends_inconclusive_there(versions, settings):
    old, new = versions
    test = request_version_test(new.bot, max_pairs=100)
    assert test.max_pairs == 100 and settings.ARENA["SPRT_MAX_PAIRS"] > 100
    # state: bulk (96 drawn pairs, as 96 reports would leave them; its 4 open matches make 100)
    VersionTest.objects.filter(pk=test.pk).update(pentanomial=[0, 0, 96, 0, 0])
    test.refresh_from_db()
    for _ in range(4):
        play_next(test, (1.0, 0.0))
    assert test.state == VersionTest.State.INCONCLUSIVE and sum(test.pentanomial) == 100
    assert not test.matches.filter(status__in=(Match.Status.QUEUED, Match.Status.RUNNING)).exists()


def test_normalized_bounds_are_tested_with_the_normalized_llr(versions):
    old, new = versions
    test = request_version_test(new.bot, elo0=0.0, elo1=100.0, elo_model="normalized")
    assert test.elo_model == NORMALIZED
    play_next(test, (1.0, 0.5))
    play_next(test, (0.5, 0.0))
    normalized = Hypotheses(0.0, 100.0, elo_model=NORMALIZED)
    assert test.pentanomial == [0, 1, 0, 1, 0]
    assert test.llr == pytest.approx(llr([0, 1, 0, 1, 0], normalized))
    assert test.llr != pytest.approx(llr([0, 1, 0, 1, 0], Hypotheses(0.0, 100.0)))


def test_a_test_knows_beforehand_how_long_it_should_take(versions):
    """With no games of the baseline to go by, the forecast assumes no draws and the longest games."""
    old, new = versions
    preview = forecast_version_test(new.bot)
    assert not VersionTest.objects.exists() and not Match.objects.exists()  # a preview starts nothing
    expected = round(expected_pairs(Hypotheses(), 10.0, 0.0))
    assert preview["at_elo1"]["pairs"] == expected and preview["at_elo1"]["games"] == 2 * expected
    assert preview["draw_rate"] == 0.0 and "upper bounds" in preview["basis"] and preview["max_pairs"] == 12000
    seconds = preview["seconds_per_game"]
    assert preview["at_elo0"]["hours"] == pytest.approx(
        preview["at_elo0"]["games"] * seconds / preview["matches_at_once"] / 3600, rel=1e-3)
    test = request_version_test(new.bot)
    assert test.forecast == {key: value for key, value in preview.items() if key != "max_pairs"}


def test_the_forecast_learns_the_draw_rate_and_game_length_from_the_baselines_games(versions):
    old, new = versions
    test = request_version_test(new.bot, elo0=0.0, elo1=200.0)
    for winners in (("none", "none"), ("white", "none")):  # 3 draws in 4 games, 30 s each
        match = test.matches.filter(status=Match.Status.QUEUED).order_by("pk").first()
        token = claim_match(match.pk, "w")
        assert finish_match(match.pk, token, [{**record(winner), "duration": 30.0} for winner in winners])
    stop_version_test(test)
    preview = forecast_version_test(new.bot)
    assert preview["draw_rate"] == 0.75 and preview["seconds_per_game"] == 30.0
    assert "last 4 games" in preview["basis"]
    assert preview["at_elo1"]["pairs"] == round(expected_pairs(Hypotheses(), 10.0, 0.75))
