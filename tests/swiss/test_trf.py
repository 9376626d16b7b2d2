"""TRF16 in and out, and ``manage.py swiss FILE.trf`` printing the next round as bbpPairings does."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.swiss import trf
from tournaments.swiss.dutch import CannotPair, pair_round
from tournaments.swiss.trf import Player, Report, Result, TrfError

from .test_dutch import entries, simulate


def four_after_one_round():
    return Report(name="Test", rounds=3, players=[
        Player(1, "Alpha", 2000, [Result(3, "w", "1")]), Player(2, "Beta", 1900, [Result(4, "b", "0")]),
        Player(3, "Gamma", 1800, [Result(1, "b", "0")]), Player(4, "Delta", 1700, [Result(2, "w", "1")])])


def test_player_lines_keep_the_columns_of_the_layout():
    text = trf.write(four_after_one_round())
    alpha = next(line for line in text.splitlines() if line.startswith("001    1"))
    assert alpha[14:47].strip() == "Alpha" and alpha[48:52] == "2000"
    assert alpha[80:84] == " 1.0" and alpha[85:89] == "   1"
    assert alpha[89:99] == "     3 w 1"
    assert "XXR 3" in text.splitlines()


def test_what_is_written_reads_back_the_same():
    text = trf.write(four_after_one_round())
    again = trf.read(text)
    assert trf.write(again) == text
    assert [(p.number, p.score) for p in again.players] == [(1, 1.0), (2, 0.0), (3, 0.0), (4, 1.0)]


def run(tmp_path, text):
    path = tmp_path / "t.trf"
    path.write_text(text)
    out = StringIO()
    call_command("swiss", str(path), stdout=out)
    return out.getvalue().splitlines()


def test_the_command_prints_the_next_round(tmp_path):
    # The winners 1 and 4 meet, the losers 2 and 3. 1 and 4 both had white and both want black as strongly:
    # the higher-ranked one's preference is granted (5.2.4); 2 and 3 both had black, 2 ranks higher.
    assert run(tmp_path, trf.write(four_after_one_round())) == ["2", "4 1", "2 3"]


def test_the_command_prints_a_bye_as_n_0(tmp_path):
    report = Report(rounds=3, players=[Player(n, f"P{n}") for n in range(1, 6)])
    assert run(tmp_path, trf.write(report)) == ["3", "1 3", "4 2", "5 0"]


def test_a_requested_bye_for_the_next_round_leaves_the_player_out(tmp_path):
    report = four_after_one_round()
    report.players[0].results.append(Result(None, None, "H"))
    lines = run(tmp_path, trf.write(report))
    assert lines[0] == "2" and lines[-1].endswith(" 0") and "1" not in {n for line in lines[1:] for n in line.split()}


@pytest.mark.parametrize(("change", "line", "problem"), [
    (lambda r: setattr(r.players[1].results[0], "opponent", 9), 5, "opponent 9 is not a player"),
    (lambda r: setattr(r.players[1].results[0], "code", "1"), 5, "does not show the same game"),
    (lambda r: setattr(r.players[0].results[0], "colour", "b"), 4, "does not show the same game"),
])
def test_inconsistent_results_and_unknown_players_exit_2_naming_the_line(tmp_path, change, line, problem):
    report = four_after_one_round()
    change(report)
    with pytest.raises(CommandError) as raised:
        run(tmp_path, trf.write(report))
    assert raised.value.returncode == 2
    assert f"line {line}:" in str(raised.value) and problem in str(raised.value)


@pytest.mark.parametrize(("bad", "problem"), [
    ("001   xx      Alpha", "starting rank"),
    ("001    1      Alpha" + " " * 70 + "  0002 w ?", "unknown result"),
    ("001    1      Alpha" + " " * 62 + " 3.0", "results add up to 0"),
    ("XXR many", "XXR"),
    ("XXR 0", "XXR: the number of rounds is 0"),
    ("XXR -1", "XXR: the number of rounds is -1"),
    ("BBU nan", "BBU"), ("BBU inf", "BBU"), ("BBU 2", "BBU: a bye scores from 0 to 1"), ("BBU -0.5", "BBU"),
    ("001    1      Alpha" + " " * 61 + " nan", "the points (columns 81-84) is 'nan'"),
    ("001    1      Alpha" + " " * 70 + "  0002 w F", "a bye (F) has opponent 0000 and colour -"),
])
def test_malformed_lines_exit_2_naming_the_line(tmp_path, bad, problem):
    with pytest.raises(CommandError) as raised:
        run(tmp_path, f"012 Bad\n{bad}\n")
    assert raised.value.returncode == 2
    assert "line 2:" in str(raised.value) and problem in str(raised.value)


@pytest.mark.parametrize("code", ["Z", "H", "F"])
def test_a_late_entrant_s_block_for_the_next_round_leaves_it_out(tmp_path, code):
    report = four_after_one_round()
    report.players[0].results.append(Result(None, None, code))
    lines = run(tmp_path, trf.write(report))
    assert lines[0] == "2" and "1" not in {n for line in lines[1:] for n in line.split()}


def test_a_file_larger_than_any_trf_exits_2_unread(tmp_path):
    from ops.management.commands.swiss import MAX_BYTES

    huge = tmp_path / "huge.trf"
    with huge.open("wb") as sparse:  # a hole of NULs: no disk written
        sparse.truncate(MAX_BYTES + 1)
    with pytest.raises(CommandError) as raised:
        call_command("swiss", str(huge), stdout=StringIO())
    assert raised.value.returncode == 2 and f"more than {MAX_BYTES} bytes" in str(raised.value)


def test_a_directory_exits_2(tmp_path):
    with pytest.raises(CommandError) as raised:
        call_command("swiss", str(tmp_path), stdout=StringIO())
    assert raised.value.returncode == 2 and "not a regular file" in str(raised.value)


@pytest.mark.parametrize("kind", ["a link to /dev/zero", "a FIFO"])
def test_a_file_that_never_ends_exits_2_at_once(tmp_path, kind):
    """Through manage.py, with its memory bounded: /dev/zero was read until memory ran out, a FIFO waited for a
    writer forever."""
    import os
    import resource
    import subprocess
    import sys
    from pathlib import Path

    path = tmp_path / "t.trf"
    if kind == "a FIFO":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    ran = subprocess.run([sys.executable, "manage.py", "swiss", str(path)], cwd=Path(__file__).resolve().parents[2],
                         capture_output=True, text=True, timeout=120,
                         preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (2**31, 2**31)))
    assert ran.returncode == 2 and "not a regular file" in ran.stderr


def test_a_file_with_every_round_played_has_no_next_round():
    report = four_after_one_round()
    report.rounds = 1
    with pytest.raises(TrfError, match="no next round"):
        trf.next_pairing(report)


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 12), played=st.integers(0, 5), seed=st.integers(0, 10**6))
def test_a_written_tournament_reads_back_to_the_same_next_round(players, played, seed):
    history, _ = simulate(players, played, seed)
    rounds = played + 1
    report = Report(rounds=rounds, players=[
        Player(number, f"P{number}", results=[_result(p) for p in history[number]]) for number in history])
    again = trf.read(trf.write(report))
    try:
        expected = pair_round(entries(history), rounds)
    except CannotPair:
        with pytest.raises(CannotPair):
            trf.next_pairing(again)
        return
    assert trf.next_pairing(again) == expected


def _result(played):
    if played.bye:
        return Result(None, None, "U")
    if played.colour is None:
        return Result(None, None, "Z")
    return Result(played.opponent, played.colour, {1: "1", 0.5: "=", 0: "0"}[played.points])


def test_manage_py_swiss_exits_2_naming_the_line(tmp_path):
    """The exit status itself, through manage.py (the other tests call the command in-process)."""
    import subprocess
    import sys
    from pathlib import Path

    bad = tmp_path / "bad.trf"
    bad.write_text("012 Bad\n001   xx      Alpha\n")
    ran = subprocess.run([sys.executable, "manage.py", "swiss", str(bad)], cwd=Path(__file__).resolve().parents[2],
                         capture_output=True, text=True)
    assert ran.returncode == 2 and "line 2: the starting rank (columns 5-8) is 'xx'" in ran.stderr
