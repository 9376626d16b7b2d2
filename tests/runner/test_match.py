"""The match runner against real bot processes (tests/bots/flexbot.py in its many modes)."""

from __future__ import annotations

import os
import re
import time
import warnings
from pathlib import Path

import pytest

from engines import GAME_IDS, BadPosition, BadSettings, UnknownGame, get_game
from engines.openings import make_openings
from engines.record import verify_record
from runner.bots import load_bot
from runner.match import play_game, smoke_test

BOTS = Path(__file__).resolve().parents[1] / "bots"


def game_available(game_id: str) -> bool:
    try:
        get_game(game_id)
    except (ImportError, AttributeError):
        return False
    return True


AVAILABLE = [g for g in GAME_IDS if game_available(g)]


@pytest.fixture(scope="module")
def sandbox():
    from runner.sandbox import open_sandbox

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return open_sandbox(trusted=True)


@pytest.fixture
def flex(tmp_path):
    """A bot directory running flexbot.py with the given modes."""

    def make(*modes: str):
        directory = tmp_path / ("flex-" + "-".join(m.replace(":", "") for m in modes) if modes else "flex")
        directory.mkdir(exist_ok=True)
        (directory / "main.py").write_bytes((BOTS / "flexbot.py").read_bytes())
        (directory / "bot.toml").write_text(f'run = "python3 main.py {" ".join(modes)}"\n')
        return load_bot(directory)

    return make


def go_lines(record, who: str) -> list[dict[str, str]]:
    """The fields of every go line the runner sent to ``who`` (w or b), in order."""
    found = []
    for line in record["log"]:
        _, sender, text = line.split(" ", 2)
        if sender == f"{who}>" and text.startswith("go "):
            found.append(dict(word.partition("=")[::2] for word in text.split()[1:]))
    return found


def sent(record, who: str, prefix: str) -> list[str]:
    return [line.split(" ", 2)[2] for line in record["log"]
            if line.split(" ", 2)[1] == f"{who}>" and line.split(" ", 2)[2].startswith(prefix)]


# --- whole games ---------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", AVAILABLE)
def test_random_bots_finish_a_game_that_replays_to_the_same_result(game_id, sandbox, flex):
    record = play_game(game_id, flex("random"), flex("first"), sandbox=sandbox, tc="clock:20000+100", seed=5)
    final = verify_record(record)
    assert record["reason"] not in ("timeout", "crash", "illegal-move", "init-failed", "void")
    assert record["plies"] == len(record["actions"]) == len(record["times"]) > 0
    outcome = final.outcome()
    if outcome is not None:
        assert (record["winner"], record["reason"]) == (outcome.winner, outcome.reason)
    assert record["stderr"] == {"white": "", "black": ""}
    for key in ("game", "ruleset", "settings", "initial", "actions", "winner", "reason", "plies", "times",
                "white", "black", "tc", "detail", "stderr", "log"):
        assert key in record
    # both bots heard every action, in order, and the game over
    for who in "wb":
        played = [line.split()[2] for line in sent(record, who, "played ")]
        assert played == record["actions"]
        assert sent(record, who, "gameover ") == [
            f"gameover winner={record['winner']} reason={record['reason']} plies={record['plies']}"]
        assert sent(record, who, "quit") == ["quit"]


def test_protocol_lines_in_order(sandbox, flex):
    record = play_game("tafl9", flex("first"), flex("first"), sandbox=sandbox, tc="move:500", seed=9,
                       match_id="m-7")
    w = [line.split(" ", 2)[2] for line in record["log"] if line.split(" ", 2)[1] == "w>"]
    assert w[0] == "bgtp 1"
    assert w[1] == "newgame id=m-7 game=tafl9 side=white tc=move:500 opponent=flex-first seed=9"
    assert w[2] == f"position {record['initial']}"
    assert w[3].startswith("legal ")
    assert w[4] == "go side=white ply=1 movetime=500"
    assert w[5] == f"played white {record['actions'][0]} ply=1"
    b = [line.split(" ", 2)[2] for line in record["log"] if line.split(" ", 2)[1] == "b>"]
    assert b[1].startswith("newgame id=m-7 game=tafl9 side=black")
    assert b[3] == f"played white {record['actions'][0]} ply=1"
    assert b[4].startswith("position ") and b[6] == "go side=black ply=2 movetime=500"


def test_names_and_case_insensitive_actions(sandbox, flex):
    record = play_game("tafl9", flex("first", "lowercase"), flex("first"), sandbox=sandbox,
                       white_name="Alpha Bot!", black_name="beta")
    assert record["white"] == "Alpha_Bot_" and record["black"] == "beta"
    verify_record(record)
    assert record["actions"][0] != record["actions"][0].lower()  # stored canonical


# --- clocks --------------------------------------------------------------------------------------


def test_clock_runs_down_across_moves(sandbox, flex):
    record = play_game("tafl9", flex("first", "slow:40"), flex("first"), sandbox=sandbox, tc="clock:5000+0")
    wtimes = [int(fields["wtime"]) for fields in go_lines(record, "w")]
    assert wtimes[0] == 5000
    # the clock starts once go is written, so a busy machine may shave some ms off a 40 ms think
    assert all(later <= earlier - 25 for earlier, later in zip(wtimes, wtimes[1:]))
    white_times = record["times"][0::2]
    assert all(t >= 25 for t in white_times)
    # what the go lines say is what the record charged
    assert wtimes[-1] == pytest.approx(5000 - sum(white_times[: len(wtimes) - 1]), abs=len(wtimes))


def test_increment_is_added_after_each_action(sandbox, flex):
    record = play_game("tafl9", flex("first", "slow:20"), flex("first"), sandbox=sandbox, tc="clock:3000+200")
    wtimes = [int(fields["wtime"]) for fields in go_lines(record, "w")]
    assert len(wtimes) > 3
    assert all(later > earlier for earlier, later in zip(wtimes, wtimes[1:]))  # +200 beats ~20 spent
    assert go_lines(record, "w")[0]["winc"] == "200" and go_lines(record, "b")[0]["binc"] == "200"


def test_clock_timeout_after_a_few_moves(sandbox, flex):
    record = play_game("tafl9", flex("first", "slow:150"), flex("first"), sandbox=sandbox, tc="clock:500+0")
    assert (record["winner"], record["reason"]) == ("black", "timeout")
    assert 2 <= len(record["actions"][0::2]) <= 4  # 500 ms buys three moves of 150 ms (+50 ms margin)
    verify_record(record)


def test_move_budget_timeout(sandbox, flex):
    record = play_game("tafl9", flex("first"), flex("first", "slow:400"), sandbox=sandbox, tc="move:100")
    assert (record["winner"], record["reason"], record["plies"]) == ("white", "timeout", 1)
    assert sent(record, "w", "gameover ") == [
        "gameover winner=white reason=timeout detail=no_move_within_100+50_ms plies=1"
    ]


def test_margin_absorbs_small_overruns(sandbox, flex):
    within = play_game("tafl9", flex("first", "slow:120"), flex("first"), sandbox=sandbox, tc="move:100",
                       margin_ms=150)
    assert within["reason"] != "timeout"
    beyond = play_game("tafl9", flex("first", "slow:120"), flex("first"), sandbox=sandbox, tc="move:100",
                       margin_ms=0)
    assert (beyond["winner"], beyond["reason"], beyond["plies"]) == ("black", "timeout", 0)


def test_start_up_is_not_charged_to_the_clock(sandbox, tmp_path):
    slow_start = tmp_path / "slowstart"
    slow_start.mkdir()
    (slow_start / "main.py").write_text(
        "import time; time.sleep(0.4)\n" + (BOTS / "first_bot.py").read_text())
    (slow_start / "bot.toml").write_text('run = "python3 main.py"\n')
    record = play_game("tafl9", load_bot(slow_start), load_bot(BOTS / "first_bot.py"), sandbox=sandbox,
                       tc="clock:300+0", margin_ms=50)
    assert record["reason"] != "timeout"
    assert go_lines(record, "w")[0]["wtime"] == "300"


def test_misbehaving_opponent_does_not_touch_the_other_clock(sandbox, flex):
    # black floods stderr, sends info and unknown lines, and thinks 60 ms per move
    record = play_game("tafl9", flex("first"), flex("first", "slow:60", "stderr-flood", "noisy"), sandbox=sandbox,
                       tc="clock:4000+0")
    white_times = record["times"][0::2]
    black_times = record["times"][1::2]
    # the clock starts once the go line is written, so a busy machine can shave a little off 60 ms
    assert all(t >= 45 for t in black_times)
    assert max(white_times) < 40
    for number, fields in enumerate(go_lines(record, "w")):
        assert int(fields["wtime"]) >= 4000 - sum(white_times[:number]) - number - 1
    assert len(record["stderr"]["black"]) <= 8 * 1024 and record["stderr"]["black"].endswith("x\n")
    assert record["reason"] not in ("timeout", "crash", "output-limit")


def test_bad_arguments_fail_before_any_bot_starts(sandbox, flex):
    bot = flex("first")
    with pytest.raises(UnknownGame):
        play_game("chess", bot, bot, sandbox=sandbox)
    with pytest.raises(BadSettings, match="time control"):
        play_game("tafl9", bot, bot, sandbox=sandbox, tc="blitz")
    with pytest.raises(BadSettings, match="retries"):
        play_game("tafl9", bot, bot, sandbox=sandbox, retries=-1)
    with pytest.raises(BadSettings, match="unknown setting"):
        play_game("tafl9", bot, bot, sandbox=sandbox, settings={"no_such_rule": True})


# --- termination reasons -------------------------------------------------------------------------


def test_illegal_move_is_answered_with_error_then_forfeit(sandbox, flex):
    record = play_game("tafl9", flex("first"), flex("illegal"), sandbox=sandbox)
    assert (record["winner"], record["reason"], record["detail"]) == ("white", "illegal-move", "Z99-Z98")
    assert sent(record, "b", "error ") == ["error illegal Z99-Z98"]
    assert sent(record, "b", "gameover ") == ["gameover winner=white reason=illegal-move detail=Z99-Z98 plies=1"]
    verify_record(record)


def test_retries_resend_legal_and_go(sandbox, flex):
    record = play_game("tafl9", flex("illegal-once"), flex("first"), sandbox=sandbox, retries=1)
    assert record["reason"] != "illegal-move"
    assert sent(record, "w", "error ") == ["error illegal Z99-Z98"]
    first_gos = [line for line in sent(record, "w", "go ") if "ply=1 " in line]
    assert len(first_gos) == 2
    verify_record(record)


def test_crash_keeps_exit_code_and_stderr(sandbox, flex):
    record = play_game("tafl9", flex("first", "crash-at:2"), flex("first"), sandbox=sandbox)
    assert (record["winner"], record["reason"], record["plies"]) == ("black", "crash", 2)
    assert "exit code 3" in record["detail"]
    assert "crashing on go 2" in record["stderr"]["white"]
    verify_record(record)


@pytest.mark.parametrize("modes", [("silent",), ("no-ready",), ("version:2",), ("crash-start",), ("noflush",)])
def test_init_failed(sandbox, flex, modes):
    started = time.monotonic()
    record = play_game("tafl9", flex("first"), flex(*modes), sandbox=sandbox, startup_ms=400)
    assert (record["winner"], record["reason"], record["plies"]) == ("white", "init-failed", 0)
    assert time.monotonic() - started < 5
    verify_record(record)


def test_init_failure_detail_names_the_problem(sandbox, flex):
    version = play_game("tafl9", flex("version:2"), flex("first"), sandbox=sandbox, startup_ms=400)
    assert version["detail"] == "protocol version 2" and version["winner"] == "black"
    crash = play_game("tafl9", flex("crash-start"), flex("first"), sandbox=sandbox, startup_ms=400)
    assert "exit code 7" in crash["detail"] and "crash at start" in crash["stderr"]["white"]
    silent = play_game("tafl9", flex("silent"), flex("first"), sandbox=sandbox, startup_ms=300)
    assert silent["detail"] == "no bgtp reply in time"


def test_both_failing_before_move_one_is_void(sandbox, flex):
    record = play_game("tafl9", flex("silent"), flex("crash-start"), sandbox=sandbox, startup_ms=300)
    assert (record["winner"], record["reason"], record["plies"]) == ("none", "void", 0)
    verify_record(record)


@pytest.mark.parametrize("mode, reason", [("resign", "resign"), ("error", "bot-error"),
                                          ("flood", "output-limit"), ("longline", "output-limit")])
def test_forfeits(sandbox, flex, mode, reason):
    record = play_game("tafl9", flex("first"), flex(mode), sandbox=sandbox, tc="move:3000")
    assert (record["winner"], record["reason"], record["plies"]) == ("white", reason, 1)
    if mode == "error":
        assert record["detail"] == "error out of memory in search"
    if mode == "longline":
        assert "longer than 1024" in record["detail"]
    verify_record(record)


def test_answer_before_go_is_ignored(sandbox, flex):
    # black sends a second move after each answer, while white thinks 30 ms: nobody asked for it
    # (played lines reach a bot together with its next go, so a move sent in answer to them cannot be
    # told apart from an answer to that go: the protocol has no sequence numbers)
    record = play_game("tafl9", flex("first", "slow:30"), flex("first", "double"), sandbox=sandbox, tc="move:500")
    assert any("ignored line sent before go: move" in line for line in record["log"])
    assert record["reason"] not in ("illegal-move", "timeout", "crash")
    assert min(record["times"][1::2]) >= 0
    verify_record(record)
    assert any("ignored line sent before go" in line for line in record["log"])


def test_info_unknown_lines_and_second_move_are_ignored(sandbox, flex):
    # the opponent thinks 20 ms, so the second move is surely in the pipe before white's next go
    record = play_game("tafl9", flex("first", "noisy", "double"), flex("first", "slow:20", "answer-on-gameover"),
                       sandbox=sandbox)
    assert record["reason"] not in ("illegal-move", "crash", "bot-error", "output-limit", "timeout")
    assert min(record["times"][0::2]) >= 0
    assert any("ignored line sent before go: move" in line for line in record["log"])
    verify_record(record)


def test_bot_that_ignores_quit_is_terminated_then_killed(sandbox, flex):
    started = time.monotonic()
    record = play_game("tafl9", flex("first", "linger"), flex("first", "stubborn"), sandbox=sandbox)
    elapsed = time.monotonic() - started
    assert 3.0 <= elapsed < 6.0  # 2 s grace after quit, SIGTERM, 1 s, then the tree is killed
    assert any("SIGTERM" in line for line in record["log"])


def test_no_bot_process_survives_a_game(sandbox, flex):
    marker = "survivor-check"
    play_game("tafl9", flex("first", "linger", marker), flex("first", marker), sandbox=sandbox, tc="move:200")
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            assert marker.encode() not in cmdline


# --- extra turns ---------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", [g for g in ("fidchell-1", "fidchell-2") if g in AVAILABLE])
def test_fidchell_extra_turns_go_twice_to_the_same_bot(game_id, sandbox, flex):
    for seed in range(1, 8):
        record = play_game(game_id, flex("random"), flex("random"), sandbox=sandbox, tc="clock:30000+0",
                           seed=seed)
        verify_record(record)
        if any(fields.get("extra") == "1" for who in "wb" for fields in go_lines(record, who)):
            break
    else:
        pytest.fail("no extra turn in 7 random games")
    gos = [(line.split(" ", 2)[1][0], line.split(" ", 2)[2]) for line in record["log"]
           if line.split(" ", 2)[1] in ("w>", "b>") and line.split(" ", 2)[2].startswith("go ")]
    for (prev_who, _), (who, text) in zip(gos, gos[1:]):
        if "extra=1" in text:
            assert who == prev_who  # the same bot again; its opponent only heard played
    # every extra go followed a capture the opponent also heard about
    for who, text in gos:
        if "extra=1" in text:
            ply = int(re.search(r"ply=(\d+)", text).group(1))
            opponent = "b" if who == "w" else "w"
            assert any(f"ply={ply - 1}" in line and "x=" in line for line in sent(record, opponent, "played "))


# --- through bubblewrap --------------------------------------------------------------------------


def real_sandbox():
    from runner.sandbox import SandboxError, open_sandbox

    try:
        return open_sandbox()
    except SandboxError as error:
        if os.environ.get("CI"):
            pytest.fail(f"bubblewrap sandbox unavailable in CI: {error}")
        pytest.skip(f"bubblewrap sandbox unavailable: {error}")


def test_game_through_bubblewrap(flex):
    sandbox = real_sandbox()
    record = play_game("tafl9", flex("random"), flex("first"), sandbox=sandbox, tc="clock:20000+100", seed=2)
    verify_record(record)
    assert record["reason"] not in ("timeout", "crash", "init-failed", "void")


def test_timeout_and_crash_through_bubblewrap(flex):
    sandbox = real_sandbox()
    timeout = play_game("tafl9", flex("first", "slow:400"), flex("first"), sandbox=sandbox, tc="move:100")
    assert (timeout["winner"], timeout["reason"]) == ("black", "timeout")
    crash = play_game("tafl9", flex("first"), flex("crash-at:1"), sandbox=sandbox)
    assert (crash["winner"], crash["reason"]) == ("white", "crash")


@pytest.mark.parametrize("game_id", ["tafl9", "fidchell-1", "fidchell-2", "shatra"])
def test_smoke_test_passes_a_bot_that_plays_one_action(sandbox, flex, game_id):
    assert smoke_test(game_id, flex("first"), sandbox=sandbox, startup_ms=5000, move_ms=5000) is None


@pytest.mark.parametrize("modes, failure", [
    (("silent",), "init-failed: no bgtp reply in time"),
    (("no-ready",), "init-failed: no ready reply in time"),
    (("illegal",), "illegal-move: Z99-Z98"),
    (("crash-at:1",), "crash"),
    (("slow:1500",), "timeout"),
])
def test_smoke_test_names_the_failure(sandbox, flex, modes, failure):
    found = smoke_test("tafl9", flex(*modes), sandbox=sandbox, startup_ms=1000, move_ms=1200)
    assert found is not None and found.reason.startswith(failure), found


def test_record_keeps_wall_clock_duration_apart_from_each_sides_thinking(sandbox, flex):
    """Start-up and the runner's own work are wall-clock time no bot thinks through: the record says both,
    and each side's thinking is the sum of that side's action times."""
    record = play_game("tafl9", flex("first", "slow:30", "crash-at:4"), flex("first"), sandbox=sandbox,
                       tc="move:1000")
    assert record["reason"] == "crash" and record["plies"] == 6
    thinking = record["thinking"]
    assert thinking["white"] == pytest.approx(sum(record["times"][0::2]) / 1000, abs=0.01)
    assert thinking["black"] == pytest.approx(sum(record["times"][1::2]) / 1000, abs=0.01)
    assert thinking["white"] >= 0.075  # three answers, each after a 30 ms sleep
    # two Python start-ups and the ends of two processes come on top of the thinking
    assert record["duration"] > thinking["white"] + thinking["black"]


@pytest.mark.parametrize("game_id", AVAILABLE)
def test_a_game_from_an_opening_starts_there_and_its_record_replays_from_it(game_id, sandbox, flex):
    start = make_openings(game_id, 1, 3, seed=4)[0]  # three plies: the other side acts first
    record = play_game(game_id, flex("random"), flex("first"), sandbox=sandbox, tc="clock:20000+100", seed=5,
                       start=start)
    assert record["initial"] == start != get_game(game_id).initial().text()
    verify_record(record)  # replays from the record's start, not the game's initial position
    mover = "w" if get_game(game_id).parse(start).turn == "white" else "b"
    assert sent(record, mover, "position ")[0] == f"position {start}"
    assert record["reason"] not in ("timeout", "crash", "illegal-move", "init-failed", "void")


def test_a_start_that_is_not_a_playable_position_is_refused_before_any_bot_starts(sandbox, flex):
    with pytest.raises(BadPosition):
        play_game("tafl9", flex("first"), flex("first"), sandbox=sandbox, start="3bbb3/nonsense w 0")
