"""The arena's own settings, each declared once (variable, type, default, range, description) and read typed:
``arena.ELO_K``; config/settings.py builds ``settings.ARENA`` from them, ``python -m knobs`` docs/settings.md's table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")

START = 1500  # a new bot's Elo, and the pool average fitted ratings are anchored to

RATINGS = "Ratings"
UPLOADS = "Uploads and bots"
MATCHES = "Matches, tournaments and fair play"
WORKERS = "Workers and the ladder"
GROUPS = (RATINGS, UPLOADS, MATCHES, WORKERS)


class Knob(Generic[T]):
    """One setting: ``ARENA_<name>`` in the environment, ``settings.ARENA[name]``, ``arena.<name>``.

    ``default`` may be a function of the settings read before it (and ``VAR_DIR``); ``shown`` is then how the docs
    say it. ``low`` and ``high`` bound it, checked when the settings load. ``environment=False``: a value derived
    from others, never read from the environment (and not in the docs' table).
    """

    def __init__(self, kind: type[T], default: T | Callable[[Mapping[str, Any]], T], group: str, description: str,
                 low: float | None = None, high: float | None = None, shown: str = "", environment: bool = True):
        self.kind, self.default, self.group, self.description = kind, default, group, description
        self.low, self.high, self.shown, self.environment = low, high, shown, environment
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @property
    def variable(self) -> str:
        return f"ARENA_{self.name}"

    def default_for(self, known: Mapping[str, Any]) -> T:
        return self.default(known) if callable(self.default) else self.default

    def problem(self, value: Any) -> str | None:
        """Why ``value`` is outside the range, or None."""
        if self.low is not None and self.high is not None and not self.low <= value <= self.high:
            return f"{self.variable} must be from {_number(self.low)} to {_number(self.high)}, got {value}"
        if self.low is not None and value < self.low:
            return f"{self.variable} must be at least {_number(self.low)}, got {value}"
        if self.high is not None and value > self.high:
            return f"{self.variable} must be at most {_number(self.high)}, got {value}"
        return None

    @overload
    def __get__(self, reader: None, owner: type | None = None) -> Knob[T]: ...

    @overload
    def __get__(self, reader: Arena, owner: type | None = None) -> T: ...

    def __get__(self, reader, owner=None):
        if reader is None:
            return self
        return reader[self.name]


class Arena(Mapping[str, Any]):
    """The arena's settings by attribute, typed: ``settings.ARENA`` read at each access (so a test's override is
    seen), or the dict given (config/settings.py checks the one it is building)."""

    def __init__(self, values: Mapping[str, Any] | None = None):
        self._given = values

    def _values(self) -> Mapping[str, Any]:
        if self._given is not None:
            return self._given
        # Django only once the live settings are read: the declarations load without it (ratings.elo, pure math).
        from django.conf import settings

        return settings.ARENA

    def __getitem__(self, name: str) -> Any:
        return self._values()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values())

    def __len__(self) -> int:
        return len(self._values())

    # --- Ratings ---
    ELO_START = Knob(int, START, RATINGS, "a new version's Elo")
    ELO_K_PROVISIONAL = Knob(int, 40, RATINGS, "K for a bot's first `ARENA_ELO_PROVISIONAL_GAMES` rated games",
                             low=0)
    ELO_PROVISIONAL_GAMES = Knob(int, 20, RATINGS, "rated games a bot is provisional for", low=0)
    ELO_K = Knob(int, 20, RATINGS, "K after them", low=0)
    RATING_FIT_AVERAGE = Knob(int, START, RATINGS, "the pool average fitted ratings are anchored to")
    # The fit's weak normal priors keep a bot with a handful of games (or only wins) finite and drawn to the pool.
    RATING_PRIOR_SD = Knob(int, 250, RATINGS, low=1, description=(
        "the fit's normal prior on each rating around the pool average, standard deviation in Elo: a bot with a "
        "handful of games stays finite and drawn towards the pool; the coverage of the intervals "
        "(`benchmarks/ratings.py`) is measured on bots spread 200 Elo"))
    RATING_VERSION_PRIOR_SD = Knob(int, 300, RATINGS, low=1, description=(
        "the fit's prior on a bot's new version: normal around its previous version's rating (not the pool's "
        "average), standard deviation in Elo; `benchmarks/ratings.py` measures the coverage of a new version 300 "
        "Elo stronger"))
    RATING_ADVANTAGE_PRIOR_SD = Knob(int, 150, RATINGS, low=1, description=(
        "the fit's normal prior on the first-player advantage around 0, standard deviation in Elo: a young pool's "
        "advantage stays sane"))
    LEADERBOARD_RANKED_MARGIN = Knob(int, 100, RATINGS, low=0, description=(
        "the leaderboard ranks a bot once the fitted 95% margin of the version it plays the ladder with is at most "
        "this (Elo); the others are listed apart as provisional (read at each fit)"))
    RATING_FIT_SECONDS = Knob(int, 300, RATINGS, low=1, description=(
        "how often beat refits the ratings of the games whose rated results changed since (an idle game is not "
        "refitted)"))
    # The matches that finish meanwhile share the refit; beat's refit above stays as the safety net.
    RATING_REFIT_DELAY_SECONDS = Knob(float, 3.0, RATINGS, low=0, description=(
        "a rated match's game is refitted this long after its result is stored; matches finishing meanwhile share "
        "the refit"))
    SPRT_OPEN_MATCHES = Knob(int, 4, RATINGS, "an SPRT's matches queued or running at once", low=1)
    # 12,000 keeps the power at H1 of the default bounds [0, 10] at 94% or more with no draws at all (5,000 cut it
    # to 79%): benchmarks/sprt.py.
    SPRT_MAX_PAIRS = Knob(int, 12000, RATINGS, low=1, description=(
        "colour-swapped pairs after which an SPRT without a verdict ends `inconclusive`; the default and the "
        "largest `max_pairs` a request may ask for"))

    # --- Uploads and bots ---
    UPLOAD_MAX_BYTES = Knob(int, 5 << 20, UPLOADS, "an uploaded file's size", low=1)
    UPLOAD_MAX_FILES = Knob(int, 200, UPLOADS, "entries in an archive", low=1)
    UPLOAD_MAX_UNPACKED_BYTES = Knob(int, 50 << 20, UPLOADS, "what an archive unpacks to", low=1)
    UPLOAD_MAX_RATIO = Knob(int, 100, UPLOADS, "an archive's compression ratio", low=1)
    UPLOAD_MAX_PY_BYTES = Knob(int, 1 << 20, UPLOADS, "a single `.py` bot's size", low=1)
    # compile() in a child process: a 1 MB literal takes ~0.7 s and ~700 MB to compile.
    UPLOAD_PY_CHECK_CPU_SECONDS = Knob(int, 5, UPLOADS, "CPU seconds of a `.py` bot's syntax check", low=1)
    UPLOAD_PY_CHECK_MEMORY_BYTES = Knob(int, 1 << 30, UPLOADS, "address space of that check", low=1)
    SMOKE_TEST_STARTUP_SECONDS = Knob(int, 10, UPLOADS, "a new version's smoke test: its start-up deadline", low=1)
    SMOKE_TEST_MOVE_SECONDS = Knob(int, 10, UPLOADS, "and its one move's", low=1)
    SANDBOX_TRUSTED = Knob(bool, False, UPLOADS, (
        "run bots as bare processes, unconfined: only trusted bots on a developer machine"))
    # A bot in a shared cgroup can slow or kill its neighbour's.
    RATED_NEEDS_ISOLATION = Knob(bool, True, UPLOADS, (
        "a worker whose sandbox cannot keep each bot in cgroups of its own (memory with kernel memory, processes, "
        "an equal CPU share, a freeze) plays unrated matches only, and the dashboard says why; trusted mode is "
        "exempt (the operator vouches for every bot); `./arena up` sets `0`, one person's own laptop"))
    BOT_MEMORY_BYTES = Knob(int, 1 << 30, UPLOADS, "each bot's memory limit", low=1)
    BOT_CACHE_DIR = Knob(Path, lambda known: Path(known["VAR_DIR"]) / "bots", UPLOADS, shown="`ARENA_VAR_DIR/bots`",
                         description="unpacked bots for the sandbox, and each version's build under `builds/`")
    BOT_CACHE_BYTES = Knob(int, 2 << 30, UPLOADS, low=1, description=(
        "that cache's bound on disk (allocated blocks, builds included), least recently used out first; trees in "
        "play are never evicted, so it can exceed the bound by them"))
    PLAYER_STORAGE_BYTES = Knob(int, 50 << 20, UPLOADS, low=0, description=(
        "what one player's versions may take in storage (their uploaded files added up; staff have no quota)"))
    # Without CACHE_URL each process's cache is its own: the workers write each game so far here, the web reads it.
    LIVE_DIR = Knob(Path, lambda known: Path(known["VAR_DIR"]) / "live", UPLOADS, environment=False,
                    description="games being played now, for their watchers (tournaments/live.py)")
    WEBHOOK_MAX_ENDPOINTS = Knob(int, 5, UPLOADS, "webhooks one player may have (docs/webhooks.md)", low=0)
    WEBHOOK_TIMEOUT_SECONDS = Knob(float, 5.0, UPLOADS, low=0.1, description=(  # 0: nothing could be delivered
        "one delivery try's deadline: to connect, send and have the whole answer; a host name's lookup waits as long"))
    WEBHOOK_MAX_ATTEMPTS = Knob(int, 6, UPLOADS, "tries of a delivery before it is marked failed", low=1)
    WEBHOOK_RETRY_SECONDS = Knob(float, 30.0, UPLOADS, low=0, description=(
        "the wait before a delivery's second try, doubled before each next one"))
    WEBHOOK_SECONDS_A_MINUTE = Knob(float, 20.0, UPLOADS, low=0.1, description=(
        "the hooks worker's time one player's deliveries may take in a minute; past it, their next ones wait for "
        "the next minute (no try counted), so one player's slow receivers cannot hold everyone's deliveries"))
    WEBHOOK_ALLOW_HTTP = Knob(bool, False, UPLOADS, (
        "also accept plain `http://` webhook URLs (a test or a closed network; never on a public arena)"))
    WEBHOOK_ALLOW_PRIVATE = Knob(bool, False, UPLOADS, (
        "also deliver to loopback, private, link-local, multicast and reserved addresses, and IPv6 ones that carry "
        "them (the tests' local receiver); off, they are refused at registration and at each delivery"))

    # --- Matches, tournaments and fair play ---
    DEFAULT_TIME_CONTROL = Knob(str, "move:1000", MATCHES, "the ladder's time control (inside the bounds below)")
    DEFAULT_GAMES_PER_MATCH = Knob(int, 2, MATCHES, "the ladder's games per match")
    MAX_GAMES_PER_MATCH = Knob(int, 100, MATCHES, "games per match, and per tournament pairing", low=1)
    TIME_CONTROL_MOVE_MIN_MS = Knob(int, 50, MATCHES, "shortest `move:MS`", low=1)
    TIME_CONTROL_MOVE_MAX_MS = Knob(int, 10_000, MATCHES, "longest `move:MS`", low=1)
    TIME_CONTROL_CLOCK_BASE_MAX_MS = Knob(int, 15 * 60_000, MATCHES, "largest `BASE` of `clock:BASE+INC`", low=1)
    TIME_CONTROL_CLOCK_INCREMENT_MAX_MS = Knob(int, 10_000, MATCHES, "largest `INC` of `clock:BASE+INC`", low=0)
    MAX_QUEUED_MATCHES_PER_PLAYER = Knob(int, 10, MATCHES, low=1, description=(
        "challenges one player (not staff) may have queued or playing"))
    # 3 worker-days: a 32-bot round robin at move:1000, two games a pairing.
    OWNER_QUEUED_SECONDS = Knob(int, 3 * 24 * 3600, MATCHES, low=1, description=(
        "expected worker-seconds one player (not staff) may have queued: challenges, tournaments, SPRT tests, "
        "smoke tests of uploads; a request past it is refused (400, `budget`)"))
    MAX_RUNNING_TOURNAMENTS_PER_PLAYER = Knob(int, 2, MATCHES, low=1, description=(
        "tournaments one player (not staff) may have running"))
    MAX_DRAFT_TOURNAMENTS_PER_PLAYER = Knob(int, 5, MATCHES, low=0, description=(
        "draft tournaments one player (not staff) may have at once"))
    MAX_TOURNAMENT_ENTRANTS = Knob(int, 32, MATCHES, "the largest round robin", low=1)
    # Retirement needs pairs, not games: a pair plays the opening from both sides, so the bots' strength cancels.
    OPENING_BALANCE_MIN_PAIRS = Knob(int, 10, MATCHES, low=1, description=(
        "colour-swapped pairs an opening of a suite must have played before it may be retired as one-sided "
        "(docs/openings-balance.md)"))
    OPENING_BALANCE_LOW = Knob(float, 0.25, MATCHES, low=0, high=0.5, description=(
        "an opening whose first mover scores below this (points per game) after those pairs is retired"))
    OPENING_BALANCE_HIGH = Knob(float, 0.75, MATCHES, low=0.5, high=1, description=(
        "and one whose first mover scores above this; a score exactly at a bound stays in play"))

    # --- Workers and the ladder ---
    MATCH_LEASE_SECONDS = Knob(int, 120, WORKERS, low=1, description=(
        "a lease not extended for this long is expired by the scavenger"))
    # A few beats per lease, so that one late beat is harmless.
    HEARTBEAT_SECONDS = Knob(float, lambda known: max(0.2, known["MATCH_LEASE_SECONDS"] / 4), WORKERS, low=0,
                             shown="lease / 4 (at least 0.2)",
                             description="how often a playing worker extends its lease")
    MATCH_MAX_ATTEMPTS = Knob(int, 3, WORKERS, low=1, description=(
        "claims before a match that keeps losing its worker is marked failed, with the reason"))
    MAX_MATCH_SECONDS = Knob(int, 4 * 3600, WORKERS, low=1, description=(
        "no match runs longer (hard time limit); the Redis visibility timeout is this + CLAIM_AGAIN_SECONDS + 1 h"))
    CLAIM_AGAIN_SECONDS = Knob(int, 600, WORKERS, low=0, high=1800, description=(
        "for this long after a wake-up a worker that finished a match claims the next itself, without going back "
        "to the broker (a wake-up's time limits are the longest match plus this); 0: one match per wake-up"))
    SCAVENGE_SECONDS = Knob(float, 30.0, WORKERS, "how often beat runs the scavenger", low=0)
    DISPATCH_SECONDS = Knob(float, 30.0, WORKERS, low=0, description=(
        "how often beat sends queued matches that have no message on the way"))
    DISPATCH_GRACE_SECONDS = Knob(float, 60.0, WORKERS, low=0, description=(
        "a queued match's message older than this, with the broker queue empty, counts as lost"))
    SCHEDULE_SECONDS = Knob(float, 60.0, WORKERS, "how often beat tops up the ranked ladders", low=0)
    LADDER_QUEUED_PER_GAME = Knob(int, 8, WORKERS, "open ranked matches kept per game, at most", low=0)
    LADDER_QUEUED_PER_WORKER = Knob(int, 2, WORKERS, low=0, description=(
        "the ladder queues no more once this many of its matches per worker alive (asked for work or beat on a "
        "match in the last 10 minutes, `match_rules.WORKER_ALIVE`) are queued"))
    LADDER_SHARE = Knob(float, 0.5, WORKERS, low=0, high=1, description=(
        "the ranked ladder's guaranteed fraction of the worker time used in the window, whenever it has work "
        "(`docs/scale.md`, \"Which work comes first\")"))
    FAIR_SHARE_WINDOW_SECONDS = Knob(int, 3600, WORKERS, low=1, description=(
        "the window of recent worker time the fair shares are measured over"))
    LADDER_OWNER_SHARE = Knob(float, 0.5, WORKERS, low=0, high=1, description=(
        "the largest share of a game's open ranked matches one owner's bots may take"))
    LADDER_PLACEMENT_MATCHES = Knob(int, 3, WORKERS, "ranked matches a new version plays before ordinary pairing",
                                    low=0)
    QUEUE_WARNING_SECONDS = Knob(int, 900, WORKERS, low=0, description=(
        "the dashboard warns when the oldest queued match or smoke test has waited longer"))


KNOBS: tuple[Knob, ...] = tuple(value for value in vars(Arena).values() if isinstance(value, Knob))
arena = Arena()


def range_problems(values: Mapping[str, Any]) -> list[str]:
    """Every declared setting of ``values`` outside its range, in the words that name its variable."""
    return [problem for knob in KNOBS if knob.name in values and (problem := knob.problem(values[knob.name]))]


def _number(value: float) -> str:
    return f"{value:g}"


def _shown(knob: Knob) -> str:
    if knob.shown:
        return knob.shown
    value = knob.default
    if isinstance(value, bool):
        return f"`{int(value)}`"
    if isinstance(value, float):
        return f"`{value:g}`"
    if knob.name.endswith("_BYTES"):
        unit, size = next((unit, size) for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10),
                                                          ("bytes", 1)) if value % size == 0)
        return f"`{value}` ({value // size} {unit})"
    return f"`{value}`"


def _range(knob: Knob) -> str:
    if knob.low is not None and knob.high is not None:
        return f"{_number(knob.low)} to {_number(knob.high)}"
    if knob.low is not None:
        return f"{_number(knob.low)} or more"
    if knob.high is not None:
        return f"at most {_number(knob.high)}"
    return {bool: "`0` or `1`", str: "—", Path: "a directory"}.get(knob.kind, "any")


def markdown() -> str:
    """docs/settings.md's tables of the ARENA_* variables, one section per group."""
    parts = []
    for group in GROUPS:
        rows = [f"| `{knob.variable}` | {_shown(knob)} | {_range(knob)} | {knob.description} |"
                for knob in KNOBS if knob.group == group and knob.environment]
        parts.append("\n".join([f"## {group}", "", "| variable | default | range | meaning |", "|---|---|---|---|",
                                *rows]))
    return "\n\n".join(parts) + "\n"
