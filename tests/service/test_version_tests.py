"""The SPRT of a new version against the previous one: its matches, the pairs it counts, the verdict it reaches
by itself, and the gate that keeps a new version off the ladder until it passes."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from ratings.models import VersionTest
from ratings.sprt import Hypotheses, llr
from tournaments.models import BotVersion, Match
from tournaments.services import (
    claim_match,
    fail_match,
    finish_match,
    request_version_test,
    set_version_disabled,
)

from .conftest import ready_version, record

WIDE = {"elo0": 0.0, "elo1": 200.0}  # a clean sweep passes after 8 pairs, a whitewash fails after 5


@pytest.fixture
def versions(make_bot):
    """A bot with an old and a new ready version."""
    bot = make_bot("alpha")
    return ready_version(bot), ready_version(bot)


def play_next(test: VersionTest, candidate_points: tuple[float, float]) -> Match:
    """Play the test's oldest queued match: the candidate (A, white in game 1) scores ``candidate_points``."""
    match = test.matches.filter(status=Match.Status.QUEUED).order_by("pk").first()
    token = claim_match(match.pk, "w")
    first = {1.0: "white", 0.5: "none", 0.0: "black"}[candidate_points[0]]
    second = {1.0: "black", 0.5: "none", 0.0: "white"}[candidate_points[1]]
    assert finish_match(match.pk, token, [record(first), record(second)])
    test.refresh_from_db()
    return match


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
    BotVersion.objects.filter(pk=new.pk).update(status=BotVersion.Status.PENDING)
    with pytest.raises(ValidationError) as error:
        request_version_test(new.bot, version_id=new.pk)
    assert "not ready" in error.value.message_dict["version"][0]
