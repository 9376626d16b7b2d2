"""FIDE's Tournament Report File, the TRF16 layout JaVaFo and bbpPairings read: read, check, write."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .dutch import BLACK, WHITE, Entry, Pairing, Played, mark_floats, pair_round

# Result codes and the points each is worth (a mini-match's result scores like one game).
POINTS = {"1": 1.0, "0": 0.0, "=": 0.5, "+": 1.0, "-": 0.0, "W": 1.0, "D": 0.5, "L": 0.0,
          "H": 0.5, "F": 1.0, "U": 1.0, "Z": 0.0}
OVER_THE_BOARD = {"1": "0", "0": "1", "=": "=", "W": "L", "L": "W", "D": "D"}  # a result and its opponent's
FORFEITS = {"+": "-", "-": "+"}
BYES = frozenset("HFUZ")  # no opponent: half-point, full-point, pairing-allocated, zero-point bye
COLUMN_BLOCKS = 89  # 0-based start of round 1's block
BLOCK = 10


class TrfError(ValueError):
    """A malformed or inconsistent file: ``line`` is the 1-based line number the problem is on."""

    def __init__(self, line: int, problem: str):
        super().__init__(f"line {line}: {problem}")
        self.line, self.problem = line, problem


@dataclass
class Result:
    """One round's block: ``opponent`` None for a bye or absence, ``colour`` ``w``/``b`` or None."""

    opponent: int | None
    colour: str | None
    code: str

    @property
    def points(self) -> float:
        return POINTS[self.code]


@dataclass
class Player:
    number: int
    name: str
    rating: int = 0
    results: list[Result | None] = field(default_factory=list)  # per round; None: no block (not yet paired)
    line: int = 0  # where it was read, for messages

    @property
    def score(self) -> float:
        return sum(result.points for result in self.results if result)


@dataclass
class Report:
    name: str = ""
    rounds: int | None = None
    initial_colour: str = WHITE
    players: list[Player] = field(default_factory=list)
    bye_points: float = 1.0  # BBU: what a pairing-allocated bye scores (bbpPairings' extension)

    def played_rounds(self) -> int:
        """Rounds with at least one game or pairing-allocated bye: the next round to pair is the one after."""
        return max((index + 1 for player in self.players for index, result in enumerate(player.results)
                    if result and (result.opponent or result.code == "U")), default=0)


# --- reading -------------------------------------------------------------------------------------------------

def read(text: str) -> Report:
    """Parse and check a TRF: raises TrfError naming the line for a malformed line, an unknown opponent, or
    results the two players' lines disagree on."""
    report = Report()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r\n")
        code = line[:3]
        if code == "001":
            report.players.append(_player(line, number))
        elif code == "012":
            report.name = line[4:].strip()
        elif code == "XXR":
            report.rounds = _int(line[3:].strip(), number, "XXR: the number of rounds")
            if report.rounds < 1:
                raise TrfError(number, f"XXR: the number of rounds is {report.rounds}, not at least 1")
        elif code == "XXC":
            report.initial_colour = BLACK if "black1" in line[3:] else WHITE
        elif code == "BBU":
            report.bye_points = _float(line[3:].strip(), number, "BBU: the points of a pairing-allocated bye")
            if not 0 <= report.bye_points <= 1:
                raise TrfError(number, f"BBU: a bye scores from 0 to 1 (a win), not {report.bye_points:g}")
    _check(report)
    return report


def _int(text: str, line: int, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise TrfError(line, f"{what} is {text!r}, not a whole number") from None


def _float(text: str, line: int, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):  # float() reads "nan" and "inf", which no score is
        raise TrfError(line, f"{what} is {text!r}, not a number")
    return value


def _player(line: str, number: int) -> Player:
    if len(line) < 8 or not line[4:8].strip():
        raise TrfError(number, "a player line needs its starting rank in columns 5-8")
    start = _int(line[4:8].strip(), number, "the starting rank (columns 5-8)")
    if start < 1:
        raise TrfError(number, f"the starting rank is {start}: it starts at 1")
    rating = line[48:52].strip()
    player = Player(start, line[14:47].strip(), _int(rating, number, "the rating (columns 49-52)") if rating else 0,
                    line=number)
    padded = line.ljust(COLUMN_BLOCKS)
    for index in range(COLUMN_BLOCKS, len(padded), BLOCK):
        player.results.append(_block(padded[index:index + BLOCK].ljust(BLOCK), number, len(player.results) + 1))
    while player.results and player.results[-1] is None:
        player.results.pop()
    points = line[80:84].strip()
    if points and abs(_float(points, number, "the points (columns 81-84)") - player.score) > 1e-9:
        raise TrfError(number, f"player {start} has {points} points but the results add up to {player.score:g}")
    return player


def _block(block: str, line: int, round_number: int) -> Result | None:
    if not block.strip():
        return None
    where = f"round {round_number} (columns {COLUMN_BLOCKS + 1 + BLOCK * (round_number - 1)}-" \
            f"{COLUMN_BLOCKS + BLOCK * round_number})"
    opponent_text, colour, code = block[2:6].strip(), block[7], block[9]
    if block[:2].strip() or block[6] != " " or block[8] != " ":
        raise TrfError(line, f"{where}: a round's block is '  NNNN c r', got {block!r}")
    opponent = _int(opponent_text or "0", line, f"{where}: the opponent")
    if code not in POINTS:
        raise TrfError(line, f"{where}: unknown result {code!r}; known: {' '.join(POINTS)}")
    if colour not in "wb-":
        raise TrfError(line, f"{where}: the colour is {colour!r}, not w, b or -")
    if code in BYES:
        if opponent or colour != "-":
            raise TrfError(line, f"{where}: a bye ({code}) has opponent 0000 and colour -")
        return Result(None, None, code)
    if not opponent or colour == "-":
        raise TrfError(line, f"{where}: result {code!r} needs an opponent and a colour")
    return Result(opponent, colour, code)


def _check(report: Report) -> None:
    """Every opponent is a player of the file, and each game is written the same way on both lines."""
    by_number: dict[int, Player] = {}
    for player in report.players:
        if player.number in by_number:
            first = by_number[player.number].line
            raise TrfError(player.line, f"starting rank {player.number} is also on line {first}")
        by_number[player.number] = player
    for player in report.players:
        for index, result in enumerate(player.results):
            if not result or result.opponent is None:
                continue
            where = f"round {index + 1}"
            opponent = by_number.get(result.opponent)
            if opponent is None:
                raise TrfError(player.line, f"{where}: opponent {result.opponent} is not a player of the file")
            if opponent is player:
                raise TrfError(player.line, f"{where}: player {player.number} plays itself")
            theirs = opponent.results[index] if index < len(opponent.results) else None
            expected = OVER_THE_BOARD.get(result.code) or FORFEITS[result.code]
            if (theirs is None or theirs.opponent != player.number or theirs.colour == result.colour
                    or theirs.code != expected):
                raise TrfError(player.line, f"{where}: player {player.number} has {result.colour} {result.code} "
                                            f"against {opponent.number}, whose line (line {opponent.line}) does "
                                            "not show the same game")
    if report.rounds is not None and any(len(player.results) > report.rounds for player in report.players):
        late = next(player for player in report.players if len(player.results) > report.rounds)
        raise TrfError(late.line, f"player {late.number} has results for more rounds than XXR's {report.rounds}")


def entries(report: Report) -> tuple[list[Entry], set[int]]:
    """The players as the pairing engine takes them, and who is absent from the next round (a block already
    written for it: a requested bye). A forfeit is no game: it gives no colour and no rematch, and a forfeit
    win, like a pairing-allocated or full-point bye, rules out the bye."""
    played_rounds = report.played_rounds()
    found, absent = [], set()
    for player in report.players:
        rounds = []
        for index in range(played_rounds):
            result = player.results[index] if index < len(player.results) else None
            if result is None:
                rounds.append(Played())
            elif result.code in OVER_THE_BOARD:
                rounds.append(Played(result.opponent, result.colour, result.points))
            else:
                points = report.bye_points if result.code == "U" else result.points
                rounds.append(Played(None, None, points, bye=result.code in "+UF"))
        if len(player.results) > played_rounds and player.results[played_rounds]:
            absent.add(player.number)
        found.append(Entry(player.number, tuple(rounds)))
    return found, absent


# --- writing -------------------------------------------------------------------------------------------------

def write(report: Report) -> str:
    """The file's text: header lines, then one 001 line per player by starting rank, ranks by score."""
    lines = [f"012 {report.name}"]
    if report.rounds is not None:
        lines.append(f"XXR {report.rounds}")
    lines.append(f"XXC {'white1' if report.initial_colour == WHITE else 'black1'}")
    if report.bye_points != 1.0:
        lines.append(f"BBU {report.bye_points:.1f}")
    order = sorted(report.players, key=lambda p: (-p.score, p.number))
    rank = {player.number: place for place, player in enumerate(order, start=1)}
    for player in sorted(report.players, key=lambda p: p.number):
        head = (f"001 {player.number:4d}      {player.name[:33]:<33} {player.rating or '':>4}"
                f"{'':28}{player.score:4.1f} {rank[player.number]:4d}")
        lines.append(head + "".join(_write_block(result) for result in player.results).rstrip())
    return "\n".join(lines) + "\n"


def _write_block(result: Result | None) -> str:
    if result is None:
        return " " * BLOCK
    opponent = f"{result.opponent:4d}" if result.opponent else "0000"
    return f"  {opponent} {result.colour or '-'} {result.code}"


def next_pairing(report: Report) -> Pairing:
    """The next round's pairings, the way JaVaFo and bbpPairings answer a TRF (raises CannotPair, TrfError)."""
    played = report.played_rounds()
    rounds = report.rounds or played + 1
    if played >= rounds:
        raise TrfError(0, f"all {rounds} rounds (XXR) are played: there is no next round to pair")
    found, absent = entries(report)
    present = [entry for entry in mark_floats(found) if entry.number not in absent]
    return pair_round(present, rounds, report.initial_colour, win=1.0)


def pairing_lines(pairing: Pairing) -> list[str]:
    """Their output: the number of pairs, then ``white black`` per board, the bye as ``N 0``."""
    lines = [f"{white} {black}" for white, black in pairing.boards]
    if pairing.bye:
        lines.append(f"{pairing.bye} 0")
    return [str(len(lines))] + lines
