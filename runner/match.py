"""The referee side of BGTP/1 (``docs/protocol.md``): one game between two bots."""

from __future__ import annotations

import os
import re
import select
import signal
import tempfile
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from engines.core import BLACK, NONE, SIDES, WHITE, BadPosition, BadSettings, Outcome, Termination, other
from engines.protocol import TimeControl, go_prefix, played_line
from engines.record import make_record, safe_text
from engines.registry import get_game

from . import stopping
from .bots import Bot, sanitise_name

LINE_CAP = 1024  # bytes per line from the bot, protocol §2
OUTPUT_CAP = 1 << 20  # bytes of stdout per bot per game, protocol §4
STDERR_TAIL = 8 * 1024  # bytes of stderr kept per bot in the record
STDERR_READS = 16  # reads (of up to 64 KiB) of what is left on a bot's stderr once it is done
STDERR_SHOWN_LINES = 20  # lines of a bot's stderr shown to its owner beside why it was rejected or lost
STDERR_SHOWN_WIDTH = 300  # characters of one such line
LOG_CAP = 5000  # log lines kept per game
LOG_TEXT_CAP = 240  # characters of one logged line
QUIT_GRACE_S = 2.0
TERM_GRACE_S = 1.0
SUSPEND_AFTER_S = 0.01  # the idle bot is stopped once the mover has thought this long
POLL_SLICE_S = 0.25  # longest single poll, so a dead bot whose stdout stays open is noticed
TOKEN_CHARS = re.compile(r"[^\x21-\x7e]")


# --- clocks ------------------------------------------------------------------------------------


class Clocks:
    """Both players' remaining time; ``budget`` is what the side to act may still spend now."""

    def __init__(self, tc: TimeControl):
        self.tc = tc
        self.remaining = {WHITE: float(tc.base_ms), BLACK: float(tc.base_ms)}

    def budget(self, side: str) -> float:
        return self.remaining[side] if self.tc.mode == "clock" else float(self.tc.base_ms)

    def go_fields(self, side: str, spent_ms: float = 0.0) -> str:
        if self.tc.mode == "move":
            return f"movetime={max(0, int(self.tc.base_ms - spent_ms))}"
        wtime = self.remaining[WHITE] - (spent_ms if side == WHITE else 0.0)
        btime = self.remaining[BLACK] - (spent_ms if side == BLACK else 0.0)
        inc = self.tc.inc_ms
        return f"wtime={max(0, int(wtime))} btime={max(0, int(btime))} winc={inc} binc={inc}"

    def charge(self, side: str, spent_ms: float) -> None:
        """An action completed after ``spent_ms``: clock mode takes the time and adds the increment."""
        if self.tc.mode == "clock":
            self.remaining[side] += self.tc.inc_ms - spent_ms


# --- failures ------------------------------------------------------------------------------------


class BotFailure(Exception):
    """The bot on ``side`` lost the game by ``reason`` (a bot's fault); ``detail`` names the fault."""

    def __init__(self, side: str, reason: Termination, detail: str = ""):
        super().__init__(f"{side}: {reason} {detail}".strip())
        self.side, self.reason, self.detail = side, reason, detail


def detail_token(text: str, limit: int = 64) -> str:
    """``gameover detail=`` must be one printable token."""
    return TOKEN_CHARS.sub("_", text)[:limit]


class GameLog:
    """Lines with monotonic milliseconds since the game began, capped."""

    def __init__(self, cap: int = LOG_CAP):
        self.start = time.monotonic()
        self.lines: list[tuple[float, str, str]] = []
        self.cap = cap
        self.dropped = 0

    def add(self, who: str, text: str) -> None:
        """``text`` may hold several lines written at once: one entry, one line each on export."""
        if len(self.lines) >= self.cap:
            self.dropped += 1
            return
        self.lines.append((time.monotonic(), who, text))  # formatted only on export: cheap per line

    def export(self) -> list[str]:
        lines = []
        for at, who, block in self.lines:
            stamp = f"{(at - self.start) * 1000:.1f} {who} "
            for text in block.split("\n"):
                if len(text) > LOG_TEXT_CAP:
                    text = text[:LOG_TEXT_CAP] + f"...(+{len(text) - LOG_TEXT_CAP})"
                lines.append(stamp + text)
        if self.dropped:
            lines.append(f"... {self.dropped} more lines not kept")
        return lines


# --- one bot's pipes -----------------------------------------------------------------------------


def _read_now(fd: int) -> bytes | None:
    """What a non-blocking pipe holds now: None if nothing yet, b"" at EOF (or a read error)."""
    try:
        return os.read(fd, 65536)
    except BlockingIOError:
        return None
    except OSError:
        return b""


class Channel:
    """The referee's end of one bot's pipes: an outbox for stdin, a capped line buffer for stdout."""

    def __init__(self, side: str, process: Any, log: GameLog):
        self.side = side
        self.process = process
        self.log = log
        self.in_fd = process.stdin.fileno()
        self.out_fd = process.stdout.fileno()
        self.err_fd = process.stderr.fileno() if process.stderr is not None else None
        for fd in (self.in_fd, self.out_fd, self.err_fd):
            if fd is not None:
                os.set_blocking(fd, False)
        self.outbox = bytearray()
        self.held: list[str] = []
        self.partial = bytearray()
        self.lines: deque[tuple[float, str]] = deque()  # (monotonic time the LF was read, line)
        self.stdout_bytes = 0
        self.eof = False
        self.err_open = self.err_fd is not None
        self.stderr_tail = bytearray()
        self.stdin_broken = False
        self.violation: str | None = None  # output-limit detail, once broken
        self.told_gameover = False  # from then on its stdout is not read (it waits in the pipe)
        self.suspended = False
        self.last_position: str | None = None
        self.who = side[0]
        self._to_bot, self._from_bot = f"{self.who}>", f"{self.who}<"
        self._waiting = select.poll()  # answers "has the bot written anything?" without a failing read
        self._waiting.register(self.out_fd, select.POLLIN)

    # writing

    def send(self, *lines: str) -> None:
        """Write the held lines and ``lines`` now, in one write (what the pipe does not take waits)."""
        if self.held:
            lines = (*self.held, *lines)
            self.held.clear()
        block = "\n".join(lines)
        self.log.add(self._to_bot, block)
        if self.stdin_broken:
            return
        self.outbox += (block + "\n").encode("ascii", "replace")
        self.pump_out()

    def hold(self, line: str) -> None:
        """Queue ``line`` for the next ``send``: a bot hears ``played`` lines, in order, together with
        its next ``go`` (or ``gameover``), so each action wakes only the bot that must answer."""
        self.held.append(line)

    def has_output(self) -> bool:
        return bool(self._waiting.poll(0))

    def pump_out(self) -> None:
        if not self.outbox or self.stdin_broken:
            return
        try:
            written = os.write(self.in_fd, self.outbox)
        except BlockingIOError:
            return
        except (BrokenPipeError, OSError):
            self.stdin_broken = True
            self.outbox.clear()
            return
        del self.outbox[:written]

    # reading

    def pump_in(self) -> None:
        """Read what stdout has now; complete lines go to ``lines``; caps set ``violation``.

        A bot that broke a cap or was told ``gameover`` is done: its stdout is no longer read, and a
        partial line never holds more than one line's worth, so what a bot keeps writing stays in
        its pipe (where it blocks) and never in the runner's memory.
        """
        if self.violation or self.told_gameover:
            return
        chunk = _read_now(self.out_fd)
        if chunk is None:
            return
        now = time.monotonic()
        if not chunk:
            self.eof = True
            return
        self.stdout_bytes += len(chunk)
        if self.stdout_bytes > OUTPUT_CAP:
            self.violation = f"more than {OUTPUT_CAP} bytes on stdout"
            return
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            stop = len(chunk) if end < 0 else end
            if len(self.partial) + stop - start > LINE_CAP + 1:  # + 1: the CR of a CRLF
                self.violation = f"a line longer than {LINE_CAP} bytes"
                return
            self.partial += chunk[start:stop]
            if end < 0:
                return
            self._line_done(now)
            start = end + 1

    def _line_done(self, now: float) -> None:
        raw = bytes(self.partial)
        self.partial.clear()
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if len(raw) > LINE_CAP:
            if self.violation is None:
                self.violation = f"a line longer than {LINE_CAP} bytes"
            return
        line = raw.decode("ascii", "replace")
        self.log.add(self._from_bot, line)
        self.lines.append((now, line))

    def pump_err(self) -> None:
        chunk = _read_now(self.err_fd)
        if chunk is None:
            return
        if not chunk:
            self.err_open = False
            return
        self.stderr_tail += chunk
        if len(self.stderr_tail) > STDERR_TAIL:
            del self.stderr_tail[: len(self.stderr_tail) - STDERR_TAIL]

    def stderr_text(self) -> str:
        return self.stderr_tail.decode("utf-8", "replace")

    # process control

    def suspend(self) -> None:
        if not self.suspended and self.process.poll() is None:
            self.process.suspend()
            self.suspended = True

    def resume(self) -> None:
        if self.suspended:
            self.process.resume()
            self.suspended = False

    def exit_code(self, wait_s: float = 0.2) -> int | None:
        deadline = time.monotonic() + wait_s
        while True:
            code = self.process.poll()
            if code is not None or time.monotonic() >= deadline:
                return code
            time.sleep(0.002)

    def crash_detail(self) -> str:
        code = self.exit_code()
        return "stdout closed" if code is None else f"exit code {code}"


class Pipes:
    """Waits on the bots' pipes together, so one bot's stderr or input never stalls the other."""

    def __init__(self, channels: list[Channel]):
        self.channels = channels
        self.on_wait: tuple[float, Any] | None = None  # (monotonic time, callable) while waiting on a bot
        self._poller = select.poll()
        self._registered: dict[int, int] = {}  # fd -> events now registered with _poller

    def _watch(self, reader: Channel | None) -> dict[int, tuple[Channel, str]]:
        """What to wait on now; the poller is kept across calls and only changed fds are re-registered."""
        interest: dict[int, tuple[Channel, str]] = {}
        wanted: dict[int, int] = {}
        for channel in self.channels:
            if channel.err_open:
                wanted[channel.err_fd] = select.POLLIN
                interest[channel.err_fd] = (channel, "err")
            if channel.outbox and not channel.stdin_broken:
                wanted[channel.in_fd] = select.POLLOUT
                interest[channel.in_fd] = (channel, "in")
        if reader is not None and not reader.eof:
            wanted[reader.out_fd] = select.POLLIN
            interest[reader.out_fd] = (reader, "out")
        registered = self._registered
        if wanted != registered:
            for fd in [fd for fd in registered if fd not in wanted]:
                self._poller.unregister(fd)
                del registered[fd]
            for fd, events in wanted.items():
                if registered.get(fd) != events:
                    self._poller.register(fd, events)
                    registered[fd] = events
        return interest

    def _poll_once(self, reader: Channel | None, timeout_s: float) -> None:
        interest = self._watch(reader)
        if not interest:
            time.sleep(max(0.0, min(timeout_s, POLL_SLICE_S)))
            return
        for fd, events in self._poller.poll(max(0, int(min(timeout_s, POLL_SLICE_S) * 1000) + 1)):
            channel, kind = interest[fd]
            if kind == "out":
                channel.pump_in()
            elif kind == "err":
                channel.pump_err()
            elif events & (select.POLLERR | select.POLLHUP) and not events & select.POLLOUT:
                channel.stdin_broken = True
                channel.outbox.clear()
            else:
                channel.pump_out()

    def next_line(self, channel: Channel, deadline: float) -> tuple[float, str] | None:
        """The bot's next line, or None at ``deadline``; BotFailure on EOF or an output cap."""
        while True:
            if channel.violation:
                raise BotFailure(channel.side, Termination.OUTPUT_LIMIT, channel.violation)
            if channel.lines:
                return channel.lines.popleft()
            if channel.eof:
                raise BotFailure(channel.side, Termination.CRASH, channel.crash_detail())
            stopping.check()  # each wait on a bot is a slice of at most POLL_SLICE_S: a stop is seen that soon
            left = deadline - time.monotonic()
            if left <= 0:
                if not channel.lines and not channel.eof and self._readable(channel):
                    channel.pump_in()  # sent in time but not read yet (a shared start-up deadline)
                    continue
                return None
            if self.on_wait is not None:
                when, action = self.on_wait
                if time.monotonic() >= when:
                    self.on_wait = None
                    action()
                else:
                    left = min(left, when - time.monotonic())
            self._poll_once(channel, left)
            if not channel.lines and not channel.eof and channel.process.poll() is not None:
                channel.pump_in()  # exited: collect what it wrote, then EOF shows

    @staticmethod
    def _readable(channel: Channel) -> bool:
        return bool(select.select([channel.out_fd], [], [], 0)[0])

    def flush(self, channel: Channel, deadline: float) -> bool:
        """Write the channel's outbox completely before ``deadline``; False if the bot would not read."""
        while channel.outbox and not channel.stdin_broken:
            stopping.check()
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self._poll_once(None, left)
        if channel.stdin_broken:
            raise BotFailure(channel.side, Termination.CRASH, "stdin closed (" + channel.crash_detail() + ")")
        return True

    def settle(self, timeout_s: float = 0.0) -> None:
        """Move pending bytes without waiting on any bot's answer."""
        self._poll_once(None, timeout_s)

    def drain(self, channel: Channel) -> None:
        """Read what the bot already sent (without waiting) so early lines are not taken as answers."""
        if not channel.eof and channel.has_output():
            channel.pump_in()


# --- the game ------------------------------------------------------------------------------------


class Referee:
    """One game in progress: the position, the clocks and both channels."""

    def __init__(self, game, settings, tc: TimeControl, channels: dict[str, Channel], *, margin_ms: float,
                 retries: int, suspend: bool, log: GameLog, initial=None):
        self.game = game
        self.tc = tc
        self.channels = channels
        self.pipes = Pipes(list(channels.values()))
        self.margin_ms = margin_ms
        self.retries_left = retries
        self.suspend_idle = suspend
        self.log = log
        self.clocks = Clocks(tc)
        self.initial = game.initial(settings) if initial is None else initial
        self.position = self.initial
        self.actions: list[str] = []
        self.times: list[int] = []
        self.thinking = {WHITE: 0.0, BLACK: 0.0}  # ms each side spent on its actions (extra turns included)
        self.max_plies = game.max_plies
        self._last_mover: str | None = None  # extra turns (Fidchell): the same side acts twice
        self.on_ply: Callable[[list[str], list[int]], None] | None = None  # watchers of a live game

    # start-up

    def handshake(self, startup_ms: float, failures: dict[str, BotFailure]) -> None:
        """``bgtp 1`` to both; bots that do not answer in time are added to ``failures``."""
        live = [side for side in SIDES if side not in failures]
        for side in live:
            self.channels[side].send("bgtp 1")
        deadline = time.monotonic() + startup_ms / 1000
        for side in live:
            channel = self.channels[side]
            try:
                line = self._startup_reply(channel, "bgtp", deadline)
                words = line.split()
                if len(words) < 2 or words[1] != "1":
                    version = " ".join(words[1:2]) or "missing"
                    raise BotFailure(side, Termination.INIT_FAILED, f"protocol version {version}")
            except BotFailure as failure:
                failures[side] = failure

    def newgame(self, startup_ms: float, match_id: str, seed: int | None, names: dict[str, str],
                failures: dict[str, BotFailure]) -> None:
        deadline_sides = [s for s in SIDES if s not in failures]
        for side in deadline_sides:
            words = [f"newgame id={detail_token(match_id, 64) or 'local'}", f"game={self.game.id}",
                     f"side={side}", f"tc={self.tc.text()}", f"opponent={names[other(side)]}"]
            if seed is not None:
                words.append(f"seed={seed}")
            self.channels[side].send(" ".join(words))
        deadline = time.monotonic() + startup_ms / 1000
        for side in deadline_sides:
            try:
                self._startup_reply(self.channels[side], "ready", deadline)
            except BotFailure as failure:
                failures[side] = failure
        text = self.position.text()
        for side in SIDES:
            if side not in failures:
                self.channels[side].hold(f"position {text}")
                self.channels[side].last_position = text

    def _startup_reply(self, channel: Channel, keyword: str, deadline: float) -> str:
        """The first line starting with ``keyword``; any failure before ``ready`` is init-failed."""
        while True:
            try:
                got = self.pipes.next_line(channel, deadline)
            except BotFailure as failure:
                raise BotFailure(channel.side, Termination.INIT_FAILED, f"{failure.reason}: {failure.detail}") from None
            if got is None:
                raise BotFailure(channel.side, Termination.INIT_FAILED, f"no {keyword} reply in time")
            line = got[1]
            first = line.split(" ", 1)[0]
            if first == keyword:
                return line
            if first == "error":
                raise BotFailure(channel.side, Termination.INIT_FAILED, line)
            # info and unknown lines are logged (by the channel) and ignored

    # play

    def play(self) -> Outcome:
        while True:
            outcome = self.position.outcome()
            if outcome is not None:
                return outcome
            if len(self.actions) >= self.max_plies:
                return Outcome(Termination.MAX_PLIES, NONE)
            side = self.position.turn
            legal = self.position.legal_moves()
            if not legal:
                raise RuntimeError(f"{self.game.id}: no legal action but no outcome in {self.position.text()!r}")
            extra = self._last_mover == side
            action, spent = self.ask(side, legal, extra)
            self.position = self.position.play(action)
            self.actions.append(action)
            self.times.append(round(spent))
            self.thinking[side] += spent
            self.clocks.charge(side, spent)
            self._last_mover = side
            self.tell_played(side, action)
            if self.on_ply is not None:
                self.on_ply(self.actions, self.times)

    def tell_played(self, side: str, action: str) -> None:
        line = played_line(side, action, self.position, len(self.actions))
        for channel in self.channels.values():
            channel.hold(line)

    def ask(self, side: str, legal: list[str], extra: bool) -> tuple[str, float]:
        """Send position, legal and go to the side to act; its accepted action and the ms it spent."""
        try:
            return self._ask(side, legal, extra)
        finally:
            self.pipes.on_wait = None

    def _ask(self, side: str, legal: list[str], extra: bool) -> tuple[str, float]:
        mover = self.channels[side]
        idle = self.channels[other(side)]
        mover.resume()
        self.pipes.drain(mover)
        self._handle_stray_lines(mover)
        go = go_prefix(side, len(self.actions) + 1, extra, self.position.phase)
        legal_line = "legal " + " ".join(legal)
        lines = []
        text = self.position.text()
        if mover.last_position != text:
            lines.append(f"position {text}")
            mover.last_position = text
        budget = self.clocks.budget(side)
        mover.send(*lines, legal_line, f"{go} {self.clocks.go_fields(side)}")
        if not self.pipes.flush(mover, time.monotonic() + (budget + self.margin_ms) / 1000):
            raise BotFailure(side, Termination.TIMEOUT, "did not read its input")
        start = time.monotonic()
        if self.suspend_idle:
            # only once the mover thinks a while: the idle bot first finishes reading its played line,
            # and quick answers cost no signals (nor a waitpid: suspend() skips a bot that has exited)
            self.pipes.on_wait = (start + SUSPEND_AFTER_S, idle.suspend)
        by_lower: dict[str, str] | None = None
        legal_set = set(legal)
        while True:
            got = self.pipes.next_line(mover, start + (budget + self.margin_ms) / 1000)
            if got is None:
                raise BotFailure(side, Termination.TIMEOUT, f"no move within {budget:.0f}+{self.margin_ms:.0f} ms")
            at, line = got
            spent = (at - start) * 1000
            words = line.split()
            keyword = words[0] if words else ""
            if keyword in ("move", "resign") and budget - spent < -self.margin_ms:
                raise BotFailure(side, Termination.TIMEOUT, f"answered after {spent:.0f} ms of {budget:.0f}")
            if keyword == "move":
                token = words[1] if len(words) == 2 else None
                if token is not None and token in legal_set:
                    return token, spent
                if token is not None:
                    if by_lower is None:
                        by_lower = {a.lower(): a for a in legal}
                    if token.lower() in by_lower:
                        return by_lower[token.lower()], spent
                    mover.send(f"error illegal {token}")
                    fault = token
                else:
                    fault = line
                    mover.send("error malformed " + detail_token(line[5:], 200) if len(words) > 1
                               else "error malformed move without an action")
                if self.retries_left <= 0:
                    raise BotFailure(side, Termination.ILLEGAL_MOVE, fault)
                self.retries_left -= 1
                mover.send(legal_line, f"{go} {self.clocks.go_fields(side, spent)}")
                if not self.pipes.flush(mover, start + (budget + self.margin_ms) / 1000):
                    raise BotFailure(side, Termination.TIMEOUT, "did not read its input")
            elif keyword == "resign":
                raise BotFailure(side, Termination.RESIGN, "")
            elif keyword == "error":
                raise BotFailure(side, Termination.BOT_ERROR, line)
            # info, unknown keywords and empty lines: logged, ignored

    def _handle_stray_lines(self, channel: Channel) -> None:
        """Lines sent while no go was pending: an ``error`` still forfeits, the rest is ignored."""
        if channel.violation:
            raise BotFailure(channel.side, Termination.OUTPUT_LIMIT, channel.violation)
        while channel.lines:
            _, line = channel.lines.popleft()
            if line.split(" ", 1)[0] == "error":
                raise BotFailure(channel.side, Termination.BOT_ERROR, line)
            self.log.add("runner", f"{channel.who}: ignored line sent before go: {line[:80]}")

    # the end

    def finish(self, outcome: Outcome, detail: str) -> None:
        """``gameover`` and ``quit`` to both; then 2 s to exit, SIGTERM, 1 s, and the tree is killed."""
        line = f"gameover winner={outcome.winner} reason={outcome.reason}"
        if detail:
            line += f" detail={detail_token(detail)}"
        line += f" plies={len(self.actions)}"
        for channel in self.channels.values():
            channel.resume()
            channel.send(line, "quit")
            channel.told_gameover = True
        self._wait_exit(QUIT_GRACE_S)
        running = [c for c in self.channels.values() if c.process.poll() is None]
        for channel in running:
            self.log.add("runner", f"{channel.who}: still running {QUIT_GRACE_S:.0f} s after quit; SIGTERM")
            try:
                os.kill(channel.process.pid, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                pass
        if running:
            self._wait_exit(TERM_GRACE_S)

    def _wait_exit(self, seconds: float) -> None:
        """Wait for the bots to exit, keeping the tail of their stderr (stdout is no longer read)."""
        deadline = time.monotonic() + seconds
        for channel in self.channels.values():
            channel.outbox and self.pipes.settle(0)
        while time.monotonic() < deadline:
            waiting = [c for c in self.channels.values() if c.process.poll() is None]
            if not waiting:
                return
            readable = [c.err_fd for c in waiting if c.err_open]
            for channel in waiting:
                channel.pump_out()
            if readable:
                ready, _, _ = select.select(readable, [], [], min(0.05, max(0.0, deadline - time.monotonic())))
                for channel in waiting:
                    if channel.err_open and channel.err_fd in ready:
                        channel.pump_err()
            else:
                time.sleep(0.002)


def _collect_stderr(channels: dict[str, Channel]) -> None:
    """What the bots wrote to stderr and was not read yet: a pipe's worth at most, so a bot that is
    still writing cannot keep the runner here."""
    for channel in channels.values():
        for _ in range(STDERR_READS):
            if not (channel.err_open and select.select([channel.err_fd], [], [], 0)[0]):
                break
            channel.pump_err()


def play_game(game_id: str, white, black, *, tc: str = "move:1000", sandbox, settings=None, limits=None,
              margin_ms: float = 50, startup_ms: float = 10000, retries: int = 0, seed: int | None = None,
              match_id: str = "local", white_name: str | None = None, black_name: str | None = None,
              suspend: bool = True, max_plies: int | None = None, start: str | None = None,
              on_ply: Callable[[list[str], list[int]], None] | None = None) -> dict[str, Any]:
    """Play one game of ``game_id`` between two ``runner.bots.Bot`` and return its record.

    Beside the actions' ``times`` (ms each), the record has the game's wall-clock ``duration`` and each side's
    ``thinking`` (seconds): they differ by the bots' start-up, the pipes and the runner's own work.

    ``start`` is the position text the game starts from (an opening; the game's initial position when None), and
    the record's ``initial``. ``max_plies`` stops the game earlier than the rules' cap, with reason ``max-plies``.
    ``on_ply`` is called with the actions and their times so far after each ply (a live game's watchers); it must
    not raise.

    Bad arguments raise a ``RefereeError`` before any bot starts. ``SandboxError``
    (the infrastructure failed, not a bot) propagates after both bots are killed,
    so the caller can requeue the game.
    """
    game = get_game(game_id)
    time_control = TimeControl.parse(tc)
    settings = game.settings(settings)
    initial = None if start is None else game.parse(start, settings)
    if initial is not None and (initial.outcome() is not None or not initial.legal_moves()):
        raise BadPosition(f"{game_id}: cannot start a game from {start!r}: nothing to play")
    if margin_ms < 0 or startup_ms <= 0:
        raise BadSettings(f"margin_ms must be 0 or more and startup_ms positive, got {margin_ms}, {startup_ms}")
    if not isinstance(retries, int) or retries < 0:
        raise BadSettings(f"retries must be a whole number of 0 or more, got {retries!r}")
    if limits is None:
        from .sandbox import Limits  # lazy: a trusted run never loads the sandbox (ctypes, seccomp)

        limits = Limits()
    bots = {WHITE: white, BLACK: black}
    names = {WHITE: sanitise_name(white_name or white.name, "white"),
             BLACK: sanitise_name(black_name or black.name, "black")}
    log = GameLog()
    processes: dict[str, Any] = {}
    build_failures: dict[str, BotFailure] = {}
    workdirs = []  # each bot's folder, removed at the end even if its bot never started (a stop in between)
    started = time.monotonic()  # the record's wall-clock ``duration``: start-up, both bots' thinking, the runner
    try:
        for side in SIDES:
            try:
                workdir = sandbox.prepare(bots[side], limits)
            except ValueError as error:  # BadBot: the build failed; the bot's fault
                build_failures[side] = BotFailure(side, Termination.INIT_FAILED, f"build failed: {error}")
                continue
            workdirs.append(workdir)
            processes[side] = sandbox.spawn(workdir, bots[side], limits, {})
        channels = {side: Channel(side, proc, log) for side, proc in processes.items()}
        referee = Referee(game, settings, time_control, channels, margin_ms=margin_ms, retries=retries,
                          suspend=suspend, log=log, initial=initial)
        if max_plies is not None:
            referee.max_plies = min(max_plies, game.max_plies)
        referee.on_ply = on_ply
        outcome, detail = _run(referee, names, startup_ms, match_id, seed, build_failures)
        referee.finish(outcome, detail)
        _collect_stderr(channels)
        # everything a bot wrote enters the record here, made safe to store (actions are legal ones)
        record = make_record(
            referee.initial, referee.actions, outcome, final=referee.position, times=referee.times,
            white=names[WHITE], black=names[BLACK], tc=time_control.text(), detail=safe_text(detail),
            stderr={side: safe_text(channels[side].stderr_text()) if side in channels else "" for side in SIDES},
            log=[safe_text(line) for line in log.export()],
            duration=round(time.monotonic() - started, 3),
            thinking={side: round(referee.thinking[side] / 1000, 3) for side in SIDES},
        )
        return record
    finally:
        for proc in processes.values():
            try:
                proc.kill()
            except Exception:  # noqa: BLE001 - cleanup of one bot must not skip the other
                pass
        for workdir in workdirs:
            workdir.remove()


class Rejection(NamedTuple):
    """Why a bot failed its smoke test (the reason and detail), and the last lines of its stderr (``stderr_tail``),
    which often say more: a traceback's ``ModuleNotFoundError`` where the reason only has ``exit code 1``."""

    reason: str
    stderr: str


def smoke_test(game_id: str, bot, *, sandbox, limits=None, startup_ms: float = 10000,
               move_ms: float = 10000) -> Rejection | None:
    """The bot as White against a random player for one action: handshake, ``newgame``, one ``go``.

    ``None`` when it passes, else its ``Rejection``. The bot is told ``move:1000`` but waited for
    ``move_ms``, so a slow machine is not held against it.
    """
    with tempfile.TemporaryDirectory(prefix="smoke-") as empty:
        opponent = Bot(name="random", directory=Path(empty), run="python3 -m engines.botkit")
        record = play_game(game_id, bot, opponent, tc="move:1000", sandbox=sandbox, limits=limits,
                           startup_ms=startup_ms, margin_ms=max(0.0, move_ms - 1000), match_id="smoke-test",
                           seed=1, max_plies=1)
    if record["reason"] == Termination.MAX_PLIES and record["plies"] == 1:
        return None
    return Rejection(f"{record['reason']}: {record['detail']}".strip(": "), stderr_tail(record["stderr"][WHITE]))


def stderr_tail(text: str, lines: int = STDERR_SHOWN_LINES, width: int = STDERR_SHOWN_WIDTH) -> str:
    """The last ``lines`` non-blank lines of what a bot wrote to stderr, each cut to ``width`` characters (a cut
    line ends in ``…``), control characters escaped (``engines.record.safe_text``): bounded, and plain text
    whatever the bot wrote (a page still escapes it as HTML)."""
    kept = [line.rstrip() for line in safe_text(text).split("\n") if line.strip()][-lines:]
    return "\n".join(line if len(line) <= width else line[:width - 1] + "…" for line in kept)


def _run(referee: Referee, names, startup_ms, match_id, seed, build_failures) -> tuple[Outcome, str]:
    failures = dict(build_failures)
    if len(failures) < 2:
        referee.handshake(startup_ms, failures)
        referee.newgame(startup_ms, match_id, seed, names, failures)
    for side, failure in failures.items():
        referee.log.add("runner", f"{side} failed before move 1: {failure.reason} {failure.detail}")
    if len(failures) == 2:
        return Outcome(Termination.VOID, NONE), "both bots failed before move 1"
    if failures:
        (side, failure), = failures.items()
        return Outcome(Termination.INIT_FAILED, other(side)), failure.detail
    try:
        outcome = referee.play()
        return outcome, ""
    except BotFailure as failure:
        referee.log.add("runner", f"{failure.side}: {failure.reason} {failure.detail}")
        if failure.reason is Termination.CRASH:
            failure.detail += " " + _stderr_hint(referee.channels[failure.side])
        return Outcome(failure.reason, other(failure.side)), failure.detail.strip()


def _stderr_hint(channel: Channel) -> str:
    _collect_stderr({channel.side: channel})
    tail = channel.stderr_text().strip().splitlines()
    return f"(stderr: {tail[-1][:120]})" if tail else ""

