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
    downfloated and the lower one upfloated; a player who scored more than a loss without playing (a bye, a
    forfeit win) downfloated (1.4.2, 1.4.3).

    Pass every player who ever took part (withdrawn ones too), so that each opponent's score is known.
    """
    by_number = {entry.number: entry for entry in entries}

    def before(number: int, index: int) -> float:
        return sum(played.points for played in by_number[number].rounds[:index])

    marked = []
    for entry in entries:
        rounds = []
        for index, played in enumerate(entry.rounds):
            way = DOWN if not played.colour and played.points > 0 else None
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
    needs_bye = len(entries) % 2 == 1
    graph = _graph(context, needs_bye)
    matching = networkx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) < len(entries) + len(entries) % 2:
        raise CannotPair(f"round {round_number}: no pairing keeps every absolute criterion "
                         "(no rematch, colours within +-2 and not three running, at most one bye each)")
    # A bracket's S1 and S2 are split after its moved-down players took their opponents: count those (the
    # first matching tells how many) and weigh the exchanges again against the remainders' halves.
    context.paired_up = _paired_up(context, matching)
    if any(context.paired_up.values()):
        graph = _graph(context, needs_bye)
        matching = networkx.max_weight_matching(graph, maxcardinality=True)
    matching = _first_in_rules_order(context, graph, matching)
    return _allocate(context, matching, initial_colour)


@dataclass
class _Context:
    ranked: list[Entry]
    rank: dict[int, int]
    topscorers: set[int]

    paired_up: dict[int, int] = field(default_factory=dict)  # per scoregroup: residents paired with an MDP

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
    # "criteria": the same weight without the last two digits, the exchanges (see _first_in_rules_order).
    criteria = _weights([(u, v, digits[:-2] + [0, 0]) for u, v, digits in rows], len(context.ranked))
    for (u, v, weight), (_, _, quality) in zip(_weights(rows, len(context.ranked)), criteria, strict=True):
        graph.add_edge(u, v, weight=weight, criteria=quality)
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
    if same_group:
        exchanges = _exchanges(context, high, low) if _in_s1(context, high) == _in_s1(context, low) else [0, 0]
    else:  # an S1 player of the remainder that floats down was moved to S2
        exchanges = _exchanges(context, high, None)
    return [0] + floats + [0] + colours + repeats + exchanges


def _remainder_place(context: _Context, entry: Entry) -> tuple[int, int]:
    """A resident's BSN in its bracket's remainder and the remainder's size (the moved-down players'
    opponents left it from its top, as the MDPs take the highest residents they can)."""
    taken = context.paired_up.get(context.group[entry.number], 0)
    return context.place[entry.number] - taken + 1, context.size[entry.number] - taken


def _in_s1(context: _Context, entry: Entry) -> bool:
    bsn, size = _remainder_place(context, entry)
    return bsn <= size // 2


def _exchanges(context: _Context, high: Entry, low: Entry | None) -> list[int]:
    """4.3's order of exchanges as two digits: the players moved between S1 and S2, then the BSNs moved up
    from S2 less those moved down from S1 (the lower of two S1 players, or one left unpaired, moved down;
    the higher of two S2 players moved up). Kept to 0 for an S2 player's float and an S1-S2 pair."""
    if low is None:
        if not _in_s1(context, high):
            return [0, 0]
        bsn, size = _remainder_place(context, high)
        return [1, size - bsn]
    if _in_s1(context, high):
        bsn, size = _remainder_place(context, low)
        return [1, size - bsn]
    return [1, _remainder_place(context, high)[0]]


def _bye_digits(context: _Context, entry: Entry) -> list[int]:
    # The bye's receiver has the lowest score it can have (the 2025 rules' C.5), then floats as a downfloater
    # out of every bracket below it, then has played the most games it can (C.9).
    lowest = context.groups - 1 - context.group[entry.number]
    floats = _float_digits(context, entry, context.groups)
    repeats = _repeat_floats(entry, None)
    return [lowest] + floats + [entry.unplayed] + [0, 0, 0] + repeats + _exchanges(context, entry, None)


def _paired_up(context: _Context, matching) -> dict[int, int]:
    counts: dict[int, int] = {}
    for u, v in matching:
        if BYE_NODE in (u, v) or context.group[u] == context.group[v]:
            continue
        low = max(u, v, key=lambda number: context.group[number])
        counts[context.group[low]] = counts.get(context.group[low], 0) + 1
    return counts


def _first_in_rules_order(context: _Context, graph: networkx.Graph, matching) -> set:
    """Among the pairings of the best weight, the first in the rules' order (4.2's transpositions: each
    player, best ranked first, takes the best-ranked opponent it can; the bye comes last).

    A player's opponent from its own scoregroup must keep the best weight; failing that, one from below (or
    the bye) must keep the best weight without the exchange digits, as 2.3 pairs the moved-down players
    before the remainder's exchanges count. Each choice is one matching in which the player's candidates
    carry a bonus below every digit, in their order: among the best pairings it takes the first it can. When
    the matching in hand already gives the player its first candidate, nothing is run.
    """
    graph = graph.copy()
    chosen = set()
    for entry in context.ranked:
        player = entry.number
        if player not in graph:
            continue
        partner = {u: v for pair in matching for u, v in (pair, pair[::-1])}.get(player)
        later = sorted((n for n in graph[player] if n != BYE_NODE), key=lambda n: context.rank[n])
        own = [n for n in later if context.group[n] == context.group[player]]
        below = [n for n in later if context.group[n] != context.group[player]]
        below += [BYE_NODE] if BYE_NODE in graph[player] else []
        choice = None
        if own:
            choice, found = (own[0], matching) if partner == own[0] else _first_kept(graph, player, own, "weight")
            matching = found if choice is not None else matching
        if choice is None:
            choice = below[0] if partner == below[0] else _first_kept(graph, player, below, "criteria")[0]
            if choice != partner:  # the rest paired at its best, exchanges included
                rest = graph.subgraph(n for n in graph if n not in (player, choice))
                matching = networkx.max_weight_matching(rest, maxcardinality=True) | {(player, choice)}
        chosen.add((player, choice))
        matching = {pair for pair in matching if player not in pair}
        graph.remove_nodes_from((player, choice))
    return chosen


def _best(graph: networkx.Graph, player: int, candidates: list[int], kind: str) -> set:
    """A best matching by ``kind`` in which ``player`` has the first of ``candidates`` it can have."""
    bonus = {candidate: len(candidates) - index for index, candidate in enumerate(candidates)}
    scale = len(candidates) + 1
    for u, v, data in graph.edges(data=True):
        other = v if u == player else u if v == player else None
        data["trial"] = data[kind] * scale + bonus.get(other, 0)
    return networkx.max_weight_matching(graph, maxcardinality=True, weight="trial")


def _first_kept(graph: networkx.Graph, player: int, candidates: list[int], kind: str) -> tuple[int | None, set]:
    """The first of ``candidates`` that ``player`` can have in a best matching by ``kind`` (None if none can),
    and that matching."""
    found = _best(graph, player, candidates, kind)
    partner = {u: v for pair in found for u, v in (pair, pair[::-1])}.get(player)
    return (partner if partner in candidates else None), found


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
    # Boards in the general handling rules' order: the higher score on the board, the sum of the two, then
    # the better rank (so a board with a downfloater comes after its scoregroup's own).
    boards.sort(key=lambda pair: (-max(pair[0].score, pair[1].score), -pair[0].score - pair[1].score,
                                  min(context.rank[pair[0].number], context.rank[pair[1].number])))
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
