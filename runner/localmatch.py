"""``python -m runner match`` and ``python -m runner check``: the bot author's tools."""

from __future__ import annotations

import json
import random
import sys
import threading
import time
import warnings
from collections import Counter, defaultdict
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from engines.core import BLACK, NONE, SIDES, WHITE, BadSettings, Outcome, Termination, other, points
from engines.protocol import TIME_CONTROL_SYNTAX, TimeControl, go_prefix, played_line
from engines.registry import GAME_IDS, get_game
from engines.stats import elo_pentanomial, elo_trinomial, pentanomial, tally

from .bots import load_bot, sanitise_name
from .match import (
    BotFailure,
    Channel,
    Clocks,
    GameLog,
    Pipes,
    play_game,
)

STDERR_TAIL_LINES = 8


def add_commands(subparsers) -> None:
    match = subparsers.add_parser("match", help="play bots against each other (colour-swapped pairs)")
    match.add_argument("bots", metavar="BOT", nargs="+", help="bot directory (bot.toml) or Python file; 2 or more")
    match.add_argument("--game", required=True, help=f"one of {', '.join(GAME_IDS)}")
    match.add_argument("--games", type=int, default=2, help="games per pairing, played in colour-swapped pairs")
    match.add_argument("--tc", default="clock:10000+100", help=TIME_CONTROL_SYNTAX)
    match.add_argument("--concurrency", type=int, default=1, help="games played at once")
    match.add_argument("--records", metavar="FILE", help="write every game's record as one JSON line")
    match.add_argument("--trusted", action="store_true", help="run the bots WITHOUT a sandbox (your own bots only)")
    match.add_argument("--margin", type=float, default=50, help="time margin in ms (default 50)")
    match.add_argument("--retries", type=int, default=0, help="illegal answers forgiven per game")
    match.add_argument("--startup-ms", type=float, default=10000, help="deadline for bgtp and ready replies")
    match.add_argument("--seed", type=int, default=None, help="seed of the first pair (default random)")
    match.set_defaults(func=cmd_match)

    check = subparsers.add_parser("check", help="check that a bot follows the BGTP/1 protocol")
    check.add_argument("bot", metavar="BOT", help="bot directory (bot.toml) or Python file")
    check.add_argument("--game", required=True, help=f"one of {', '.join(GAME_IDS)}")
    check.add_argument("--tc", default="move:2000", help="time control used for the check games")
    check.add_argument("--trusted", action="store_true", help="run the bot WITHOUT a sandbox")
    check.add_argument("--startup-ms", type=float, default=10000, help="deadline for bgtp and ready replies")
    check.add_argument("--seed", type=int, default=1)
    check.set_defaults(func=cmd_check)


def _open_sandbox(trusted: bool):
    from .sandbox import SandboxError, open_sandbox  # lazy: only a sandboxed run loads it (ctypes, seccomp)

    try:
        with warnings.catch_warnings():  # the sandbox prints its own loud warning in trusted mode
            warnings.simplefilter("ignore")
            return open_sandbox(trusted=trusted)
    except SandboxError as error:
        print(f"error: cannot build the sandbox: {error} (use --trusted for your own bots)".replace("\n", " "),
              file=sys.stderr)
        return None


# --- match ---------------------------------------------------------------------------------------


@dataclass
class Pairing:
    first: str
    second: str
    results: list[float] = field(default_factory=list)  # first's points per game, in game order
    reasons: Counter = field(default_factory=Counter)

    def wdl(self) -> tuple[int, int, int]:
        return tally(self.results)


@dataclass(frozen=True)
class Scheduled:
    number: int
    pairing: int
    white: int  # index into the bots
    black: int
    seed: int


def schedule(bot_count: int, games: int, base_seed: int) -> tuple[list[tuple[int, int]], list[Scheduled]]:
    """Every pair of bots plays ``games`` games; games 2k and 2k+1 swap colours with the same seed."""
    pairs = [(i, j) for i in range(bot_count) for j in range(i + 1, bot_count)]
    planned = []
    for k in range(games):
        for index, (i, j) in enumerate(pairs):
            white, black = (i, j) if k % 2 == 0 else (j, i)
            planned.append(Scheduled(len(planned) + 1, index, white, black, base_seed + k // 2))
    return pairs, planned


def cmd_match(args) -> int:
    game = get_game(args.game)
    TimeControl.parse(args.tc)
    if len(args.bots) < 2:
        raise BadSettings("match needs at least two bots")
    if args.games < 1:
        raise BadSettings(f"--games must be 1 or more, got {args.games}")
    if args.concurrency < 1:
        raise BadSettings(f"--concurrency must be 1 or more, got {args.concurrency}")
    if args.retries < 0 or args.margin < 0 or args.startup_ms <= 0:
        raise BadSettings("--retries and --margin must be 0 or more, --startup-ms positive")
    bots = [load_bot(path) for path in args.bots]
    for bot in bots:
        bot.check_plays(game.id)
    names = _unique_names([bot.name for bot in bots])
    records_file = open(args.records, "w", encoding="utf-8") if args.records else None
    try:
        sandbox = _open_sandbox(args.trusted)
        if sandbox is None:
            return 2
        base_seed = args.seed if args.seed is not None else random.randrange(1 << 30)
        pairs, planned = schedule(len(bots), args.games, base_seed)
        pairings = [Pairing(names[i], names[j]) for i, j in pairs]
        progress = Progress(len(planned))
        lock = threading.Lock()
        failures: list[str] = []

        def play(item: Scheduled) -> dict:
            return play_game(game.id, bots[item.white], bots[item.black], tc=args.tc, sandbox=sandbox,
                             margin_ms=args.margin, startup_ms=args.startup_ms, retries=args.retries,
                             seed=item.seed, match_id=f"local-{item.number}",
                             white_name=names[item.white], black_name=names[item.black])

        def finished(item: Scheduled, record: dict) -> None:
            i, _ = pairs[item.pairing]
            first_is_white = item.white == i
            white_points = points(record["winner"], WHITE)
            pairing = pairings[item.pairing]
            pairing.results.append(white_points if first_is_white else 1.0 - white_points)
            pairing.reasons[_reason_label(record)] += 1
            failures.extend(failure_lines(item.number, record))
            with lock:
                if records_file:
                    records_file.write(json.dumps(record) + "\n")
                    records_file.flush()
                progress.update(item, record)

        failure = _run_all(play, finished, planned, args.concurrency)
        progress.done()
        if failure is not None:
            print(f"error: the match stopped: {failure}".replace("\n", " "), file=sys.stderr)
            return 2
        if failures:
            print("Games lost by a failure (the reason, then the last lines of the bot's stderr):")
            print("\n".join(failures) + "\n")
        print(report(game.id, args.tc, names, pairings, len(bots) == 2))
        return 0
    finally:
        if records_file:
            records_file.close()


def _run_all(play, finished, planned: list[Scheduled], concurrency: int) -> Exception | None:
    """Play everything; results are reported in game order. An infrastructure error stops the match."""
    results: dict[int, tuple[Scheduled, dict]] = {}
    next_to_report = 1
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="game") as pool:
        pending = {pool.submit(play, item): item for item in planned}
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    item = pending.pop(future)
                    results[item.number] = (item, future.result())
                while next_to_report in results:
                    finished(*results.pop(next_to_report))
                    next_to_report += 1
        except Exception as error:  # noqa: BLE001 - SandboxError and friends: not a bot's fault
            for future in pending:
                future.cancel()
            return error
    return None


def _reason_label(record: dict) -> str:
    if Termination(record["reason"]).is_bot_fault and record["winner"] in SIDES:
        return f"{record['reason']} ({record[other(record['winner'])]})"
    return record["reason"]


def failure_lines(number: int, record: dict) -> list[str]:
    """Why a bot lost game ``number`` by a failure (both bots, for a void game), each with the last lines of its
    stderr: what ``check`` says of a failed check, for every such game of a match. None for any other game."""
    termination = Termination(record["reason"])
    if termination is Termination.VOID:
        sides = list(SIDES)
    elif termination.is_failure and record["winner"] in SIDES:
        sides = [other(record["winner"])]
    else:
        return []
    lines = []
    for side in sides:
        detail = record.get("detail") or "no detail"
        lines.append(f"  game {number}: {record[side]} ({side}) {record['reason']}: {detail}")
        tail = (record.get("stderr") or {}).get(side, "").strip().splitlines()[-STDERR_TAIL_LINES:]
        lines += [f"    | {line[:200]}" for line in tail] or ["    (nothing on stderr)"]
    return lines


def _unique_names(names: list[str]) -> list[str]:
    seen: Counter = Counter()
    unique = []
    for name in names:
        seen[name] += 1
        unique.append(name if seen[name] == 1 else sanitise_name(f"{name}-{seen[name]}"))
    return unique


class Progress:
    """A one-line progress bar on stderr (one line per game when stderr is not a terminal)."""

    def __init__(self, total: int):
        self.total = total
        self.count = 0
        self.tty = sys.stderr.isatty()
        self.started = time.monotonic()

    def update(self, item: Scheduled, record: dict) -> None:
        self.count += 1
        width = 30
        filled = width * self.count // self.total
        bar = "#" * filled + "-" * (width - filled)
        result = {WHITE: "1-0", BLACK: "0-1"}.get(record["winner"], "1/2-1/2")
        text = (f"[{bar}] {self.count}/{self.total} game {item.number}: {record['white']} vs {record['black']} "
                f"{result} {record['reason']}")
        if self.tty:
            sys.stderr.write("\r\x1b[K" + text)
        else:
            sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def done(self) -> None:
        if self.tty and self.count:
            sys.stderr.write("\n")
        sys.stderr.write(f"{self.count} games in {time.monotonic() - self.started:.1f} s\n")
        sys.stderr.flush()


def report(game_id: str, tc: str, names: list[str], pairings: list[Pairing], head_to_head: bool) -> str:
    lines = [f"Game {game_id}, time control {tc}"]
    for pairing in pairings:
        if not pairing.results:
            continue
        wins, draws, losses = pairing.wdl()
        estimate = elo_trinomial(wins, draws, losses)
        lines.append(f"Score of {pairing.first} vs {pairing.second}: {wins} - {losses} - {draws} "
                     f"[{estimate.score:.3f}] {len(pairing.results)}")
        line = (f"  Elo difference: {estimate.text()}, LOS: {estimate.los * 100:.1f} %, "
                f"DrawRatio: {draws / len(pairing.results) * 100:.1f} %")
        pair_scores = [a + b for a, b in zip(pairing.results[0::2], pairing.results[1::2])]
        if pair_scores:
            penta = pentanomial(pair_scores)
            line += f", Ptnml(0-2): {list(penta)}, pair Elo: {elo_pentanomial(penta).text()}"
        lines.append(line)
        reasons = ", ".join(f"{label} {count}" for label, count in pairing.reasons.most_common())
        lines.append(f"  Terminations: {reasons}")
    if not head_to_head:
        lines.append("")
        lines.append(f"{'Rank':>4} {'Name':<32} {'Elo':>8} {'+/-':>7} {'Games':>5} "
                     f"{'W':>4} {'D':>4} {'L':>4} {'Score':>6}")
        totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for pairing in pairings:
            wins, draws, losses = pairing.wdl()
            for name, (a, b, c) in ((pairing.first, (wins, draws, losses)), (pairing.second, (losses, draws, wins))):
                totals[name][0] += a
                totals[name][1] += b
                totals[name][2] += c
        ranked = sorted(names, key=lambda n: -(totals[n][0] + totals[n][1] / 2) / max(1, sum(totals[n])))
        for rank, name in enumerate(ranked, start=1):
            wins, draws, losses = totals[name]
            if wins + draws + losses == 0:
                continue
            estimate = elo_trinomial(wins, draws, losses)
            elo = f"{estimate.elo:+.0f}" if abs(estimate.elo) != float("inf") else f"{estimate.elo:+}"
            margin = f"{estimate.margin:.0f}" if estimate.margin != float("inf") else "inf"
            lines.append(f"{rank:>4} {name:<32} {elo:>8} {margin:>7} {wins + draws + losses:>5} "
                         f"{wins:>4} {draws:>4} {losses:>4} "
                         f"{estimate.score * 100:>5.1f}%")
    return "\n".join(lines)


# --- check ---------------------------------------------------------------------------------------


CHECKS = (
    ("handshake", "answers 'bgtp 1' with 'bgtp 1 name=...' in time"),
    ("flushes", "its lines arrive while it runs (stdout flushed after every line)"),
    ("ready", "answers newgame (with unknown keys) with 'ready' in time"),
    ("waits-for-go", "sends no move before 'go'"),
    ("plays", "answers every go with a legal action in time, both sides, to the end of a game"),
    ("extra-turns", "answers a second go to the same side (go extra=1)"),
    ("quits", "exits within 2 s of 'quit'"),
)
EARLY_WAIT_S = 0.5


@dataclass
class CheckResult:
    name: str
    passed: bool | None = None  # None: not exercised
    why: str = ""

    def fail(self, why: str) -> None:
        if self.passed is not False:
            self.passed, self.why = False, why

    def ok(self, why: str = "") -> None:
        if self.passed is None:
            self.passed, self.why = True, why


def cmd_check(args) -> int:
    game = get_game(args.game)
    tc = TimeControl.parse(args.tc)
    if args.startup_ms <= 0:
        raise BadSettings("--startup-ms must be positive")
    bot = load_bot(args.bot)
    bot.check_plays(game.id)
    sandbox = _open_sandbox(args.trusted)
    if sandbox is None:
        return 2
    results = run_checks(bot, game, sandbox, tc, args.startup_ms, args.seed)
    failed = 0
    for name, description in CHECKS:
        result = results[name]
        mark = {True: "PASS", False: "FAIL", None: "SKIP"}[result.passed]
        failed += result.passed is False
        print(f"{mark} {name:<12} {description}" + (f": {result.why}" if result.why else ""))
    print(f"{bot.name}: {'all checks passed' if not failed else f'{failed} check(s) failed'}")
    return 1 if failed else 0


def run_checks(bot, game, sandbox, tc: TimeControl, startup_ms: float, seed: int) -> dict[str, CheckResult]:
    from .sandbox import Limits  # lazy: as in _open_sandbox

    results = {name: CheckResult(name) for name, _ in CHECKS}
    for side in SIDES:
        process = sandbox.spawn(sandbox.prepare(bot, Limits()), bot, Limits(), {})
        try:
            _check_session(process, side, game, tc, startup_ms, random.Random(seed), results)
        finally:
            process.kill()
    if results["extra-turns"].passed is None:
        results["extra-turns"].why = ("not exercised: no extra turn came up" if game.id.startswith("fidchell")
                                      else f"{game.id} has no extra turns")
    return results


class _Stop(Exception):
    pass


def _check_session(process, side, game, tc, startup_ms, rng, results) -> None:
    log = GameLog()
    channel = Channel(side, process, log)
    pipes = Pipes([channel])

    def reply(keyword: str, check: str, seconds: float) -> str:
        deadline = time.monotonic() + seconds
        while True:
            try:
                got = pipes.next_line(channel, deadline)
            except BotFailure as failure:
                results[check].fail(f"as {side}: {failure.reason} ({failure.detail}){_stderr(channel)}")
                raise _Stop from None
            if got is None:
                return ""
            if got[1].split(" ", 1)[0] == keyword:
                return got[1]
            if got[1].startswith("error"):
                results[check].fail(f"as {side}: the bot reported {got[1]!r}")
                raise _Stop

    try:
        channel.send("bgtp 1")
        hello = reply("bgtp", "handshake", startup_ms / 1000)
        if not hello:
            alive = process.poll() is None
            results["handshake"].fail(f"no reply within {startup_ms / 1000:g} s")
            if alive:
                results["flushes"].fail("nothing arrived on stdout while the bot ran; flush after every line "
                                        "(Python: print(..., flush=True))")
            raise _Stop
        results["flushes"].ok()
        words = hello.split()
        if len(words) < 2 or words[1] != "1":
            results["handshake"].fail(f"as {side}: replied {hello!r}; expected 'bgtp 1 name=...'")
            raise _Stop
        if not any(w.startswith("name=") for w in words[2:]):
            results["handshake"].fail(f"as {side}: reply {hello!r} lacks name=")
        results["handshake"].ok()
        position = game.initial()
        channel.send(f"newgame id=check game={game.id} side={side} tc={tc.text()} opponent=checker seed=1 "
                     f"variant=standard future-key=1")
        if not reply("ready", "ready", startup_ms / 1000):
            results["ready"].fail(f"as {side}: no 'ready' within {startup_ms / 1000:g} s")
            raise _Stop
        results["ready"].ok()
        channel.send(f"position {position.text()}")
        _check_game(channel, pipes, side, position, tc, rng, results, reply)
        _check_quit(channel, pipes, side, results)
    except _Stop:
        pass


def _check_game(channel, pipes, side, position, tc, rng, results, reply) -> None:
    ply = 0
    last_mover = None
    waited_before_go = False
    while position.outcome() is None and ply < position.game.max_plies:
        mover = position.turn
        legal = position.legal_moves()
        extra = last_mover == mover
        if mover == side:
            channel.send(f"position {position.text()}", "legal " + " ".join(legal))
            if not waited_before_go:
                waited_before_go = True
                early = reply("move", "waits-for-go", EARLY_WAIT_S)
                if early:
                    results["waits-for-go"].fail(f"as {side}: sent {early!r} before go")
                    raise _Stop
                results["waits-for-go"].ok()
            channel.send(f"{go_prefix(side, ply + 1, extra, position.phase)} {Clocks(tc).go_fields(side)}")
            answer = reply("move", "plays", tc.base_ms / 1000 + 0.05)
            if not answer:
                results["plays" if not extra else "extra-turns"].fail(
                    f"as {side}: no move within {tc.base_ms} ms at ply {ply + 1}{' (extra turn)' if extra else ''}")
                raise _Stop
            token = answer.split()[1] if len(answer.split()) == 2 else answer
            try:
                action = position.canonical_action(token)
            except ValueError:
                results["plays"].fail(f"as {side}: illegal answer {answer!r} at ply {ply + 1}")
                raise _Stop from None
            if extra:
                results["extra-turns"].ok()
        else:
            action = rng.choice(legal)
        position = position.play(action)
        ply += 1
        last_mover = mover
        channel.send(played_line(mover, action, position, ply))
    outcome = position.outcome()
    outcome = outcome or Outcome(Termination.MAX_PLIES, NONE)
    channel.send(f"gameover winner={outcome.winner} reason={outcome.reason} plies={ply}")
    results["plays"].ok()


def _check_quit(channel, pipes, side, results) -> None:
    channel.send("quit")
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline and channel.process.poll() is None:
        pipes.settle(0.02)
        pipes.drain(channel)
    if channel.process.poll() is None:
        results["quits"].fail(f"as {side}: still running 2 s after quit")
    else:
        results["quits"].ok()
    late = [line for _, line in channel.lines if line.startswith(("bgtp", "ready", "move"))]
    if late:
        results["flushes"].fail(f"as {side}: {late[0]!r} arrived only at exit; flush after every line")


def _stderr(channel) -> str:
    tail = channel.stderr_text().strip().splitlines()
    return f"; stderr: {tail[-1][:160]}" if tail else ""
