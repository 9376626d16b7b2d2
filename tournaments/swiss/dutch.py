"""The FIDE (Dutch) system, C.04.3 as applied from 1 July 2025: one round's pairings from the history so far."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import networkx

WHITE, BLACK = "w", "b"
BYE_NODE = 0  # pairing numbers start at 1, so 0 is free for the bye's virtual opponent


class CannotPair(Exception):
    """No pairing satisfies the absolute criteria (say everyone has met everyone): the Swiss ends here."""


@dataclass(frozen=True)
class Played:
    """One past round of a player.

    ``opponent`` and ``colour`` are set only for a game played over the board (a forfeit is not a game: the two
    may still meet, and it gives no colour). ``points`` are what the round scored. ``bye`` marks a
    pairing-allocated bye or a forfeit win, after which C.2 allows no further bye.
    """

    opponent: int | None = None
    colour: str | None = None
    points: float = 0.0
    bye: bool = False
    floated: str | None = None  # DOWN or UP (A.4.b); mark_floats fills it from the players' histories


DOWN, UP = "down", "up"


@dataclass(frozen=True)
class Entry:
    """A player to pair: its pairing number (1 is the top of the initial ranking) and its past rounds in order."""

    number: int
    rounds: tuple[Played, ...] = ()

    @property
    def score(self) -> float:
        return sum(played.points for played in self.rounds)

    @property
    def colours(self) -> list[str]:
        return [played.colour for played in self.rounds if played.colour]

    @property
    def opponents(self) -> set[int]:
        return {played.opponent for played in self.rounds if played.opponent is not None and played.colour}

    @property
    def colour_difference(self) -> int:
        colours = self.colours
        return colours.count(WHITE) - colours.count(BLACK)

    @property
    def had_bye(self) -> bool:
        return any(played.bye for played in self.rounds)

    @property
    def unplayed(self) -> int:
        return sum(1 for played in self.rounds if not played.colour)


@dataclass
class Pairing:
    """A round: boards of (white, black) pairing numbers, best first, and the bye's receiver if any."""

    boards: list[tuple[int, int]] = field(default_factory=list)
    bye: int | None = None


def mark_floats(entries: list[Entry]) -> list[Entry]:
    """The same entries with each round's float set: after a game between different scores the higher one
    downfloated and the lower one upfloated; a player who did not play in a round downfloated (A.4.b).

    Pass every player who ever took part (withdrawn ones too), so that each opponent's score is known.
    """
    by_number = {entry.number: entry for entry in entries}

    def before(number: int, index: int) -> float:
        return sum(played.points for played in by_number[number].rounds[:index])

    marked = []
    for entry in entries:
        rounds = []
        for index, played in enumerate(entry.rounds):
            way = DOWN if not played.colour else None
            if played.colour and played.opponent in by_number:
                mine, theirs = before(entry.number, index), before(played.opponent, index)
                way = DOWN if mine > theirs else UP if mine < theirs else None
            rounds.append(replace(played, floated=way))
        marked.append(replace(entry, rounds=tuple(rounds)))
    return marked


# Colour preference strengths (A.6 / 1.7): none, mild, strong, absolute.
NONE, MILD, STRONG, ABSOLUTE = 0, 1, 2, 3


def other(colour: str) -> str:
    return BLACK if colour == WHITE else WHITE


def preference(entry: Entry) -> tuple[str | None, int]:
    """The colour a player should get next and how strongly (the colour difference decides before the streak)."""
    colours, difference = entry.colours, entry.colour_difference
    if not colours:
        return None, NONE
    if difference > 1:
        return BLACK, ABSOLUTE
    if difference < -1:
        return WHITE, ABSOLUTE
    if len(colours) >= 2 and colours[-1] == colours[-2]:
        return other(colours[-1]), ABSOLUTE
    if difference == 1:
        return BLACK, STRONG
    if difference == -1:
        return WHITE, STRONG
    return other(colours[-1]), MILD


def pair_round(entries: list[Entry], rounds: int, initial_colour: str = WHITE,
               win: float = 1.0) -> Pairing:
    """Pair the next round of a Swiss of ``rounds`` rounds among ``entries`` (those present this round).

    ``initial_colour`` is the colour the top-ranked player gets in round 1 (drawn by lot; 5.2.5), ``win`` the
    points of a win (for the topscorers of the last round). Raises CannotPair when no legal pairing exists.
    """
    if len({entry.number for entry in entries}) != len(entries) or any(e.number < 1 for e in entries):
        raise ValueError("pairing numbers must be distinct and positive")
    if not entries:
        return Pairing()
    round_number = 1 + max(len(entry.rounds) for entry in entries)
    ranked = sorted(entries, key=lambda e: (-e.score, e.number))
    rank = {entry.number: index for index, entry in enumerate(ranked)}
    last_round = round_number == rounds
    topscorers = {e.number for e in entries if last_round and e.score > win * (round_number - 1) / 2}
    context = _Context(ranked, rank, topscorers)
    graph = _graph(context, needs_bye=len(entries) % 2 == 1)
    matching = networkx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) < len(entries) + len(entries) % 2:
        raise CannotPair(f"round {round_number}: no pairing keeps every absolute criterion "
                         "(no rematch, colours within +-2 and not three running, at most one bye each)")
    return _allocate(context, matching, initial_colour)


@dataclass
class _Context:
    ranked: list[Entry]
    rank: dict[int, int]
    topscorers: set[int]

    def __post_init__(self):
        scores = sorted({entry.score for entry in self.ranked}, reverse=True)
        self.group = {e.number: scores.index(e.score) for e in self.ranked}
        self.groups = len(scores)
        self.by_number = {e.number: e for e in self.ranked}
        self.preference = {e.number: preference(e) for e in self.ranked}
        # A player's place in its scoregroup and the group's size, for the S1-against-S2 order.
        self.place, self.size = {}, {}
        for entry in self.ranked:
            members = [e for e in self.ranked if e.score == entry.score]
            self.place[entry.number] = members.index(entry)
            self.size[entry.number] = len(members)


def _may_meet(context: _Context, a: Entry, b: Entry) -> bool:
    """C.1 and C.3: no rematch; two non-topscorers with the same absolute colour preference never meet (in the
    final round a topscorer may, and so may its opponent)."""
    if b.number in a.opponents:
        return False
    (colour_a, strength_a), (colour_b, strength_b) = context.preference[a.number], context.preference[b.number]
    clash = strength_a == strength_b == ABSOLUTE and colour_a == colour_b
    return not clash or bool({a.number, b.number} & context.topscorers)


def _graph(context: _Context, needs_bye: bool) -> networkx.Graph:
    rows = []
    for i, a in enumerate(context.ranked):
        for b in context.ranked[i + 1:]:
            if _may_meet(context, a, b):
                rows.append((a.number, b.number, _pair_digits(context, a, b)))
        if needs_bye and not a.had_bye:  # C.2: at most one bye (a forfeit win counts as one)
            rows.append((a.number, BYE_NODE, _bye_digits(context, a)))
    graph = networkx.Graph()
    graph.add_nodes_from(entry.number for entry in context.ranked)
    for (u, v, weight) in _weights(rows, len(context.ranked)):
        graph.add_edge(u, v, weight=weight)
    return graph


def _float_digits(context: _Context, high: Entry, low_group: int) -> list[int]:
    """Per boundary between scoregroups, top down: (1 if ``high`` floats across it, how high its score is)."""
    digits = []
    for boundary in range(context.groups):
        crosses = context.group[high.number] <= boundary < low_group
        digits += [int(crosses), (context.groups - context.group[high.number]) if crosses else 0]
    return digits


def _repeat_floats(high: Entry, low: Entry | None) -> list[int]:
    """C.14 to C.17: a downfloat (upfloat) again after one in the last round, then two rounds before."""
    def floated(entry: Entry | None, back: int, way: str) -> int:
        return int(entry is not None and len(entry.rounds) >= back and entry.rounds[-back].floated == way)
    return [floated(high, 1, DOWN), floated(low, 1, UP), floated(high, 2, DOWN), floated(low, 2, UP)]


def _pair_digits(context: _Context, a: Entry, b: Entry) -> list[int]:
    high, low = (a, b) if context.rank[a.number] < context.rank[b.number] else (b, a)
    same_group = context.group[high.number] == context.group[low.number]
    floats = _float_digits(context, high, context.group[low.number])
    (colour_h, strength_h), (colour_l, strength_l) = context.preference[high.number], context.preference[low.number]
    clash = bool(strength_h and strength_l and colour_h == colour_l)
    topscorer_breach = int(clash and strength_h == strength_l == ABSOLUTE)  # C.10/C.11, topscorers only
    colours = [topscorer_breach, int(clash), int(clash and min(strength_h, strength_l) >= STRONG)]
    repeats = _repeat_floats(high, low) if not same_group else [0, 0, 0, 0]
    if same_group:  # S1 against S2: the place half the group below is the natural partner
        half = context.size[high.number] // 2
        order = abs(context.place[low.number] - context.place[high.number] - half)
    else:  # the upfloater is the highest-ranked of its group that can take the pairing
        order = context.place[low.number]
    return floats + [0] + colours + repeats + [order]


def _bye_digits(context: _Context, entry: Entry) -> list[int]:
    floats = _float_digits(context, entry, context.groups)
    repeats = _repeat_floats(entry, None)
    # The lowest-ranked of the group takes the bye: its distance from the group's end.
    order = context.size[entry.number] - 1 - context.place[entry.number]
    return floats + [entry.unplayed] + [0, 0, 0] + repeats + [order]


def _weights(rows: list[tuple[int, int, list[int]]], players: int):
    """Turn each edge's penalty digits into one positive integer weight, higher is better.

    A matching has at most players/2 + 1 edges, so a digit's base is that many times its largest value plus
    one: no sum of lower digits reaches one unit of a higher one.
    """
    if not rows:
        return []
    width = len(rows[0][2])
    edges = players // 2 + 1
    bases = [edges * max(row[2][d] for row in rows) + 1 for d in range(width)]
    total = 1
    for base in bases:
        total *= base
    weighted = []
    for u, v, digits in rows:
        penalty = 0
        for digit, base in zip(digits, bases, strict=True):
            penalty = penalty * base + digit
        weighted.append((u, v, total - penalty))  # positive: total exceeds any one edge's penalty
    return weighted


def _allocate(context: _Context, matching, initial_colour: str) -> Pairing:
    pairing = Pairing()
    boards = []
    for u, v in matching:
        if BYE_NODE in (u, v):
            pairing.bye = u or v
            continue
        a, b = context.by_number[u], context.by_number[v]
        high, low = (a, b) if context.rank[a.number] < context.rank[b.number] else (b, a)
        white_is_high = _high_gets_white(context, high, low, initial_colour)
        boards.append((high, low) if white_is_high else (low, high))
    # Boards in order of the higher player's rank (score, then pairing number).
    boards.sort(key=lambda pair: min(context.rank[pair[0].number], context.rank[pair[1].number]))
    pairing.boards = [(white.number, black.number) for white, black in boards]
    return pairing


def _high_gets_white(context: _Context, high: Entry, low: Entry, initial_colour: str) -> bool:
    """Article 5.2: colour allocation between the higher-ranked player ``high`` and ``low``."""
    (colour_h, strength_h), (colour_l, strength_l) = context.preference[high.number], context.preference[low.number]
    if colour_h and colour_l and colour_h != colour_l:  # 5.2.1: both preferences granted
        return colour_h == WHITE
    if not colour_h and colour_l:
        return colour_l == BLACK
    if colour_h and not colour_l:
        return colour_h == WHITE
    if colour_h and strength_h != strength_l:  # 5.2.2: the stronger preference
        return (colour_h == WHITE) == (strength_h > strength_l)
    if colour_h and strength_h == ABSOLUTE:  # both absolute (topscorers): the wider colour difference
        wide_h, wide_l = abs(high.colour_difference), abs(low.colour_difference)
        if wide_h != wide_l:
            return (colour_h == WHITE) == (wide_h > wide_l)
    # 5.2.3: alternate to the latest round in which one had white and the other black.
    for colour_high, colour_low in zip(reversed(high.colours), reversed(low.colours), strict=False):
        if colour_high != colour_low:
            return colour_high == BLACK
    if colour_h:  # 5.2.4: the higher-ranked player's preference
        return colour_h == WHITE
    # 5.2.5: the higher-ranked player's pairing number's parity against the initial colour.
    return (high.number % 2 == 1) == (initial_colour == WHITE)
