"""Altai Shatra (game id ``shatra``): the referee for ``rules/shatra.md``.

The board is a list of 98 small ints, square ``(rank - 1) * 7 + file`` on the
7x14 grid (a1 = 0, g14 = 97); only the 62 squares of the book are ever
touched, because every step and ray is a precomputed table that stops at the
walls. A piece is ``type | colour << 3`` (white K=1 Q=2 R=3 B=4 P=5, black
9..13). ``_Board`` is the mutable make/unmake core shared by ``legal_moves``,
``play`` and ``perft``; ``ShatraPosition`` is the immutable face the rest of
the arena sees.

A move is a tuple ``(from, to, piece_after, captured_squares, path, kind, label)``:
``kind`` 0 is an ordinary quiet move, 1 a drop (the same move as an ordinary
one with the same squares unless the drop separator setting says otherwise),
2 a capture series whose ``path`` lists ``(landing, promotion letter)``;
``label`` is its notation under the rules it was generated with.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from itertools import chain, compress, cycle
from operator import itemgetter

from .core import (
    BLACK,
    NONE,
    WHITE,
    BadPosition,
    BoundedCache,
    Game,
    Outcome,
    Position,
    digits_for_empty_runs,
)

RULESET = "shatra/2026.1"
START_FEN = "pqp/prp/brb/k/ppppppp/7/7/7/7/PPPPPPP/K/BRB/PRP/PQP w Tt - 0 1"
MAX_PLIES = 1000  # D4

FILES = "abcdefg"
K, Q, R, B, P = 1, 2, 3, 4, 5
LETTERS = {K: "k", Q: "q", R: "r", B: "b", P: "p"}
PIECE_OF_LETTER = {}
for _t, _l in LETTERS.items():
    PIECE_OF_LETTER[_l.upper()] = _t
    PIECE_OF_LETTER[_l] = _t | 8
LETTER_OF_PIECE = {piece: letter for letter, piece in PIECE_OF_LETTER.items()}
TYPE_OF_PROMOTION = {"Q": Q, "R": R, "B": B}

# Directions: N S E W NE NW SE SW (N is towards rank 14).
DIRS = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1))
N_, S_, E_, W_, NE, NW, SE, SW = range(8)
ALL8 = tuple(range(8))
ORTHO = (N_, S_, E_, W_)
DIAG = (NE, NW, SE, SW)
SIDEWAYS = (E_, W_)
FORWARD = (N_, S_)  # by colour
SLIDES = {Q: ALL8, R: ORTHO, B: DIAG}


def _is_square(file: int, rank: int) -> bool:
    if not (0 <= file < 7 and 1 <= rank <= 14):
        return False
    if rank in (4, 11):
        return file == 3
    if rank <= 3 or rank >= 12:
        return 2 <= file <= 4
    return True


SQUARES = tuple(sq for sq in range(98) if _is_square(sq % 7, sq // 7 + 1))
RANK_OF = tuple(sq // 7 + 1 for sq in range(98))
FILE_OF = tuple(sq % 7 for sq in range(98))
RANK_SQUARES = {r: tuple(sq for sq in SQUARES if RANK_OF[sq] == r) for r in range(1, 15)}


def _sq(name: str) -> int:
    return (int(name[1:]) - 1) * 7 + FILES.index(name[0])


def _step_table() -> tuple:
    table = []
    for sq in range(98):
        f, r = FILE_OF[sq], RANK_OF[sq]
        table.append(tuple(
            (r + dr - 1) * 7 + f + df if _is_square(f + df, r + dr) else -1 for df, dr in DIRS
        ))
    return tuple(table)


STEP = _step_table()


def _ray_table() -> tuple:
    rays = []
    for sq in range(98):
        per_dir = []
        for d in range(8):
            ray, at = [], STEP[sq][d]
            while at >= 0:
                ray.append(at)
                at = STEP[at][d]
            per_dir.append(tuple(ray))
        rays.append(tuple(per_dir))
    return tuple(rays)


RAY = _ray_table()
STEP_FORWARD = tuple(tuple(STEP[sq][FORWARD[c]] for sq in range(98)) for c in (0, 1))  # -1 off the board
NEIGHBOURS = tuple(tuple(land for land in STEP[sq] if land >= 0) for sq in range(98))


def _hops(sq: int, dirs) -> tuple[tuple[int, int], ...]:
    """(jumped square, landing square) of the one-square jumps from sq along dirs."""
    return tuple((STEP[sq][d], STEP[STEP[sq][d]][d]) for d in dirs if STEP[sq][d] >= 0 and STEP[STEP[sq][d]][d] >= 0)


HOPS = tuple(_hops(sq, ALL8) for sq in range(98))
SIDEWAYS_HOPS = tuple(_hops(sq, SIDEWAYS) for sq in range(98))
SLIDER_LINES = {  # [type][sq]: the slider's non-empty rays
    t: tuple(tuple(RAY[sq][d] for d in dirs if RAY[sq][d]) for sq in range(98)) for t, dirs in SLIDES.items()
}
DIR_OF_STEP = {d: i for i, d in enumerate(DIRS)}
OPPOSITE = (S_, N_, W_, E_, SW, SE, NW, NE)

# Byte boards for the capture pre-test: ``int.from_bytes(bytes(board), "little")`` holds square sq's piece in
# bits 8*sq .. 8*sq+7, so a handful of whole-board shifts and masks tell which pieces might capture at all.
BYTE = tuple(1 << 8 * sq for sq in range(98))
ON_BOARD = sum(BYTE[sq] for sq in SQUARES)
BYTE_SHIFT = tuple(8 * (dr * 7 + df) for df, dr in DIRS)
# (d, its opposite, d's shift, the squares with a neighbour on both sides along d) for N, E, NE, NW.
AXES = tuple(
    (d, OPPOSITE[d], BYTE_SHIFT[d], sum(BYTE[sq] for sq in SQUARES if STEP[sq][d] >= 0 and STEP[sq][OPPOSITE[d]] >= 0))
    for d in range(8) if BYTE_SHIFT[d] > 0
)
# SLIDER_RAYS[type][sq]: (direction, its ray as a byte board, whether the ray runs towards higher squares).
SLIDER_RAYS = {
    t: tuple(tuple((d, sum(BYTE[x] for x in RAY[sq][d]), BYTE_SHIFT[d] > 0) for d in dirs if RAY[sq][d])
             for sq in range(98))
    for t, dirs in SLIDES.items()
}

GATE = (_sq("d4"), _sq("d11"))
# F(c) ∪ G(c): own fortress and gate, as a per-square flag.
IN_FG = (
    tuple(sq in SQUARES and RANK_OF[sq] <= 4 for sq in range(98)),
    tuple(sq in SQUARES and RANK_OF[sq] >= 11 for sq in range(98)),
)
FORTRESS = (
    tuple(sq for sq in SQUARES if RANK_OF[sq] <= 3),
    tuple(sq for sq in SQUARES if RANK_OF[sq] >= 12),
)
HALF = (
    tuple(sq for sq in SQUARES if 5 <= RANK_OF[sq] <= 7),
    tuple(sq for sq in SQUARES if 8 <= RANK_OF[sq] <= 10),
)
# Rank seen from each side: 1 is its own back rank, 14 its last (promotion) rank.
REL = (tuple(RANK_OF), tuple(15 - r for r in RANK_OF))
LAST_RANK = (tuple(_sq(n) for n in ("c14", "d14", "e14")), tuple(_sq(n) for n in ("c1", "d1", "e1")))


def _reach(t: int, sq: int):
    """Every square an ordinary quiet move (no promotion, no tower) of a piece of type t on sq might land on."""
    if t == K:
        return NEIGHBOURS[sq]
    if t == P:  # steps and double steps
        return NEIGHBOURS[sq] + RAY[sq][N_][1:2] + RAY[sq][S_][1:2]
    return [land for line in SLIDER_LINES[t][sq] for land in line]


REACH = {t: tuple(_reach(t, sq) for sq in range(98)) for t in (K, Q, R, B, P)}
# The cells of each side's own fortress and gate (with a few off-board ones between).
FG_SLICES = (slice(_sq("c1"), _sq("d4") + 1), slice(_sq("d11"), _sq("e14") + 1))
# Everything outside each side's own fortress and gate (the other side's rank 14 is the last square).
FIELD_SLICES = (slice(_sq("a5"), 98), slice(0, _sq("g10") + 1))
FIELD_RANGES = tuple(range(98)[cells] for cells in FIELD_SLICES)
ENEMY_TOWERS = ((_sq("a10"), _sq("g10")), (_sq("a5"), _sq("g5")))  # A25 (Shatrabase), off by default
BIT = tuple(1 << sq for sq in range(98))


LABEL = itemgetter(6)  # a move tuple's label


def _numeric_names() -> tuple[str, ...]:
    """Official numbering of book §2.3 (1 = c14 ... 62 = e1)."""
    names = [""] * 98
    order = [_sq(n) for n in ("c14", "d14", "e14", "c13", "d13", "e13", "c12", "d12", "e12", "d11")]
    for rank in range(10, 4, -1):
        order += [(rank - 1) * 7 + f for f in range(7)]
    order += [_sq(n) for n in ("d4", "c3", "d3", "e3", "c2", "d2", "e2", "c1", "d1", "e1")]
    for number, sq in enumerate(order, 1):
        names[sq] = str(number)
    return tuple(names)


ALGEBRAIC_NAMES = tuple(FILES[sq % 7] + str(sq // 7 + 1) if sq in SQUARES else "" for sq in range(98))
NUMERIC_NAMES = _numeric_names()

COORDINATES = ("algebraic", "numeric")
LONG_JUMP_LANDINGS = ("any-continuing", "first-continuing")
DROP_SEPARATORS = ("-", "*")


@dataclass(frozen=True)
class Settings:
    """The decisions of rules/shatra.md §6 (A1-A28, with A24's draws D1-D4), each with the book's default."""

    coordinates: str = "algebraic"  # A1: square names in actions and the ep field; or "numeric" (1-62)
    first_side: str = WHITE  # A2: White moves first
    double_step_from_rank5_only: bool = True  # A3: False: also from rank 6 (Black: 9), the seed's reading
    fortress_shatra_steps_north: bool = True  # A4: a shatra back in its own F/G (temdek off) steps 1 forward
    en_passant: bool = True  # A5: diagonal en-passant jump by a shatra on its rank 8, first jump only
    long_jump_landing: str = "any-continuing"  # A6: or "first-continuing" (Shatrabase: the nearest one)
    decliner_must_move_itself: bool = True  # A7: a declined capture: the capturer moves
    gate_shatra_optional_capture: bool = True  # A8: a shatra starting on the enemy gate has the biy's rights
    promote_mid_series: bool = True  # A9: promote on arrival and go on capturing; False: only at series end
    delayed_promotion: bool = True  # A10: waiting shatras promote when the opponent captures a Q/R/B
    promotion_pool: str = "QRRBB"  # A11: the army promotion counts against
    intruder_shatra_drops: bool = True  # A12: an intruding shatra may be dropped onto the enemy half
    gate_intruders_drop: bool = True  # A13: intruders on the enemy gate have drop rights too
    secondary_reserve_drops: bool = True  # A14: secondary-reserve pieces may drop as well as move
    biy_may_step_onto_gate: bool = False  # A15: with the temdek on the biy re-enters its gate only by capture
    urgent_drop_overrides_decline: bool = True  # A16: an urgent drop replaces the decliner's quiet move
    great_road: bool = True  # A17: IR batyr/tura on the d-file may slide beyond its own half
    drops_on_great_road: bool = True  # A18: drops may land on the d-file squares of the half
    temdek_off_mid_series: bool = False  # A19: the temdek switches off at the end of the move, not mid-series
    shatra_captures_backward: bool = True  # A20: shatras jump in all 8 directions (False: no S/SE/SW jumps)
    biy_capture_ends_series: bool = True  # A21: jumping the biy ends the series at once
    may_leave_biy_capturable: bool = True  # A22: no check; False: biy-safety filter
    no_legal_move_loses: bool = True  # A23: False: a side without a legal move draws
    repetition_draw_count: int = 3  # A24/D1: draw on the 3rd occurrence (0 = off)
    no_progress_plies: int = 100  # A24/D2: draw after 100 plies without progress (0 = off)
    bare_biys_plies: int = 6  # A24/D3: with only the biys left, draw after 6 plies (0 = off)
    max_plies: int = MAX_PLIES  # A24/D4: hard cap on plies (0 = off)
    tower_squares: bool = False  # A25: Shatrabase's teleport from the enemy towers into the enemy fortress
    reserve_ordinary_moves: bool = False  # A26: initial-reserve pieces only drop (and use the great road)
    start_position: str = START_FEN  # A27: the initial layout (Black's shatra on c14, not "c4")
    drop_separator: str = "-"  # A28: "-": a drop and a move with the same squares are one move; "*": distinct

    def __post_init__(self):
        def one_of(name, allowed):
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")

        one_of("coordinates", COORDINATES)
        one_of("first_side", (WHITE, BLACK))
        one_of("long_jump_landing", LONG_JUMP_LANDINGS)
        one_of("drop_separator", DROP_SEPARATORS)
        if not self.promotion_pool or any(ch not in "QRB" for ch in self.promotion_pool):
            raise ValueError(f"promotion_pool must be letters from Q, R, B, got {self.promotion_pool!r}")
        for name in ("no_progress_plies", "bare_biys_plies", "max_plies"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be 0 (off) or positive, got {getattr(self, name)}")
        if self.repetition_draw_count < 0 or self.repetition_draw_count == 1:
            raise ValueError(
                f"repetition_draw_count must be 0 (off) or at least 2, got {self.repetition_draw_count}"
            )
        try:
            _read_fen(self.start_position, _rules(self, check_start=False))
        except BadPosition as exc:
            raise ValueError(f"start_position: {exc}") from None


def _shatra_step_dirs(c: int, rr: int, fortress_steps_north: bool) -> tuple[int, ...]:
    """The quiet step directions of a shatra of colour c on its relative rank rr (book §5.3 table)."""
    fwd = FORWARD[c]
    diag = (NE, NW) if c == 0 else (SE, SW)
    if rr <= 4:
        return (fwd,) if fortress_steps_north else ()
    if rr <= 6:
        return (fwd,)
    if rr == 7:
        return (fwd,) + diag
    if rr <= 13:
        return (fwd,) + diag + SIDEWAYS
    return SIDEWAYS


@cache
def _shatra_lands(fortress_steps_north: bool) -> tuple:
    """[colour][square]: the squares a shatra steps to (if empty)."""
    return tuple(
        tuple(
            tuple(STEP[sq][d] for d in _shatra_step_dirs(c, REL[c][sq], fortress_steps_north) if STEP[sq][d] >= 0)
            for sq in range(98)
        )
        for c in (0, 1)
    )


@cache
def _double_steps(double_ranks: tuple[int, ...]) -> tuple:
    """[colour][square]: (skipped square, landing square) of a shatra's double step, or None."""
    def double_step(c, sq):
        mid = STEP[sq][FORWARD[c]]
        if REL[c][sq] not in double_ranks or mid < 0 or STEP[mid][FORWARD[c]] < 0:
            return None
        return mid, STEP[mid][FORWARD[c]]

    return tuple(tuple(double_step(c, sq) for sq in range(98)) for c in (0, 1))


@cache
def _field_shatra_steps(fortress_steps_north: bool, double_ranks: tuple[int, ...], towers: bool) -> tuple:
    """[colour][square]: the quiet moves of a shatra outside both fortresses (ranks 5-10, so no promotion).

    Each is (square that must be empty, landing): the landing itself for a step, the skipped square for a
    double step (whose landing must be empty too). None where a tower (A25) adds more.
    """
    def steps(c, sq):
        if towers and sq in ENEMY_TOWERS[c]:
            return None
        double = _double_steps(double_ranks)[c][sq]
        singles = tuple((land, land) for land in _shatra_lands(fortress_steps_north)[c][sq])
        return singles + ((double,) if double else ())

    return tuple(tuple(steps(c, sq) for sq in range(98)) for c in (0, 1))


@cache
def _shatra_hops(captures_backward: bool) -> tuple:
    """[colour][square]: a shatra's (jumped, landing) squares (A20: maybe not backwards)."""
    back = (S_, SE, SW), (N_, NE, NW)
    dirs = tuple(ALL8 if captures_backward else tuple(d for d in ALL8 if d not in back[c]) for c in (0, 1))
    return tuple(tuple(_hops(sq, dirs[c]) for sq in range(98)) for c in (0, 1))


class _Rules:
    """Everything a settings instance decides, turned into tables once."""

    def __init__(self, s: Settings):
        self.settings = s
        self.names = ALGEBRAIC_NAMES if s.coordinates == "algebraic" else NUMERIC_NAMES
        self.square_of = {name: sq for sq, name in enumerate(self.names) if name}
        self.drop_sep = s.drop_separator
        self.drops_distinct = s.drop_separator != "-"
        # Squares in the order of their names, so that moves come out nearly sorted by label (cheap to sort).
        self.squares_by_name = tuple(sorted(SQUARES, key=self.names.__getitem__))
        self.pieces_by_name = itemgetter(*self.squares_by_name)
        self.drop_squares = tuple(
            tuple(sq for sq in self.squares_by_name if sq in HALF[c] and (s.drops_on_great_road or FILE_OF[sq] != 3))
            for c in (0, 1)
        )
        # A shatra's quiet steps, double steps and jumps, each [colour][square] (tables shared between rules).
        double_ranks = (5, 6) if not s.double_step_from_rank5_only else (5,)
        self.pawn_lands = _shatra_lands(s.fortress_shatra_steps_north)
        self.double_steps = _double_steps(double_ranks)
        self.field_shatra_steps = _field_shatra_steps(s.fortress_shatra_steps_north, double_ranks, s.tower_squares)
        self.shatra_hops = _shatra_hops(s.shatra_captures_backward)
        self.pool = {t: s.promotion_pool.count(letter) for letter, t in TYPE_OF_PROMOTION.items()}
        self.first_continuing = s.long_jump_landing == "first-continuing"
        self.repetition = s.repetition_draw_count
        self.no_progress = s.no_progress_plies
        self.bare = s.bare_biys_plies
        self.max_plies = s.max_plies
        self.drop_rows: dict[int, list] = {}  # s << 4 | p -> drops_from(s, p)
        self.step_rows: dict[int, list] = {}  # s << 4 | p -> steps_from(s, p)
        self.fg_by_name = tuple(tuple(sq for sq in self.squares_by_name if IN_FG[c][sq]) for c in (0, 1))
        self.drop_cells = tuple(itemgetter(*squares) for squares in self.drop_squares)  # see drop_mask
        self.quiet_labels = BoundedCache(CACHE_SIZE)  # label -> quiet_squares(label)
        self.move_rows = _MoveRows(self)
        self.label_rows = _LabelRows(self)

    def steps_from(self, s: int, p: int) -> list:
        """The quiet moves of the piece p on s without promotion, indexed by landing square (each built once)."""
        key = s << 4 | p
        row = self.step_rows.get(key)
        if row is None:
            labels = self.step_labels[s]
            row = self.step_rows[key] = [None] * 98
            for land in REACH[p & 7][s]:
                row[land] = (s, land, p, (), "", 0, labels[land])
        return row

    def drops_from(self, s: int, p: int) -> tuple:
        """The drops of the piece p on s, one per drop square of the half next to s (see ``drop_mask``).

        s is in a fortress or gate; its pieces (reserves or intruders) drop onto that half. Each is built once.
        """
        key = s << 4 | p
        row = self.drop_rows.get(key)
        if row is None:
            labels = self.drop_labels[s]
            row = self.drop_rows[key] = tuple((s, land, p, (), "", 1, labels[land]) for land in self.drops_next_to(s))
        return row

    def quiet_squares(self, label: str) -> tuple[int, int, str]:
        """(from, to, promotion letter or "") of a quiet move's or drop's label."""
        found = self.quiet_labels.get(label)
        if found is None:
            squares, _, letter = label.partition("=")
            frm, _, to = squares.replace("*", "-").partition("-")
            found = self.quiet_labels.keep(label, (self.square_of[frm], self.square_of[to], letter))
        return found

    def drops_next_to(self, s: int) -> tuple[int, ...]:
        """The drop squares of the half next to the fortress or gate square s."""
        return self.drop_squares[0 if IN_FG[0][s] else 1]

    def drop_mask(self, c: int, cells: bytes) -> tuple[int, ...]:
        """1 for each empty drop square of side c's half, 0 for the others, in the order of ``drop_squares[c]``.

        A row of drops (as ``drops_from``) and this mask give the possible drops: ``compress(row, mask)``.
        """
        return self.drop_cells[c](cells.translate(EMPTY_CELLS))

    def _names_with(self, sep: str) -> tuple[tuple[str, ...], ...]:
        names = self.names
        return tuple(
            tuple(names[frm] + sep + names[to] if names[frm] and names[to] else "" for to in range(98))
            for frm in range(98)
        )

    @cached_property
    def jump_names(self) -> tuple[str, ...]:
        """``jump_names[sq]``: how a capture series writes a landing on sq."""
        return tuple("x" + name for name in self.names)

    @cached_property
    def step_labels(self) -> tuple[tuple[str, ...], ...]:
        """``step_labels[from][to]``: the label of the quiet move (built on first use: validation never needs it)."""
        return self._names_with("-")

    @cached_property
    def drop_labels(self) -> tuple[tuple[str, ...], ...]:
        """``drop_labels[from][to]``: the label of the drop."""
        return self.step_labels if self.drop_sep == "-" else self._names_with(self.drop_sep)


class _QuietRows:
    """How quiet-move generation writes a move: it picks them from prebuilt rows (a piece's steps indexed by landing
    square, its drops in the order of ``_Rules.drop_squares``).

    ``_MoveRows`` gives move tuples (for make/unmake), ``_LabelRows`` just their labels: that is all the public
    position lists, and its play rebuilds the one move it needs from the label.
    """

    def __init__(self, rules: _Rules):
        self.rules = rules
        # per side: its fortress and gate's cells -> reserve()
        self.reserves = (BoundedCache(CACHE_SIZE), BoundedCache(CACHE_SIZE))

    def reserve(self, c: int, cells: bytes) -> tuple[tuple, tuple[int, ...]]:
        """(their rows of drops one after the other, the squares of great-road pieces) for the pieces side c has
        in its own fortress and gate (its initial reserve while its temdek is on), in name order.

        Those squares change far more rarely than the rest of the board: only when a piece leaves or enters them.
        """
        key = cells[FG_SLICES[c]]
        found = self.reserves[c].get(key)
        if found is None:
            rules = self.rules
            own = [sq for sq in rules.fg_by_name[c] if cells[sq] and cells[sq] >> 3 == c]
            drops = tuple(chain.from_iterable(self.drops(sq, cells[sq]) for sq in own))
            roads = ()
            if rules.settings.great_road:
                roads = tuple(sq for sq in own if FILE_OF[sq] == 3 and cells[sq] & 7 in (Q, R))
            found = self.reserves[c].keep(key, (drops, roads))
        return found

    @cached_property
    def field_shatra(self) -> tuple:
        """[colour][square]: a shatra's quiet moves from a square outside both fortresses and gates, each as
        (square that must be empty, landing that must be empty, the move); None elsewhere (or on a tower, A25)."""
        table = self.rules.field_shatra_steps
        return tuple(
            tuple(
                None if IN_FG[0][sq] or IN_FG[1][sq] or table[c][sq] is None
                else tuple((empty, land, self.steps(sq, P | c << 3)[land]) for empty, land in table[c][sq])
                for sq in range(98)
            )
            for c in (0, 1)
        )


class _MoveRows(_QuietRows):
    """Quiet moves as move tuples (``steps(s, p)``, ``drops(s, p)``: the rows of ``_Rules``), for make/unmake."""

    label = staticmethod(LABEL)

    def __init__(self, rules: _Rules):
        super().__init__(rules)
        self.steps = rules.steps_from
        self.drops = rules.drops_from

    def move(self, s: int, land: int, piece: int, letter: str):
        """A shatra's step from s to land, promoting to ``letter`` if not ""."""
        label = self.rules.step_labels[s][land]
        return (s, land, piece, (), letter, 0, label + "=" + letter if letter else label)


class _LabelRows(_QuietRows):
    """Quiet moves as their labels only, for the public position."""

    def steps(self, s: int, p: int) -> tuple[str, ...]:
        return self.rules.step_labels[s]

    def drops(self, s: int, p: int) -> tuple[str, ...]:
        return self.drop_rows[s]

    @cached_property
    def drop_rows(self) -> tuple[tuple[str, ...], ...]:
        """[square]: the labels of the drops from a fortress or gate square (as ``_Rules.drops_from``)."""
        rules = self.rules
        return tuple(
            tuple(rules.drop_labels[s][land] for land in rules.drops_next_to(s)) if IN_FG[0][s] or IN_FG[1][s] else ()
            for s in range(98)
        )

    def move(self, s: int, land: int, piece: int, letter: str) -> str:
        label = self.rules.step_labels[s][land]
        return label + "=" + letter if letter else label

    @staticmethod
    def label(label: str) -> str:
        return label


CACHE_SIZE = 4096  # entries in each of the rules' caches


@lru_cache(maxsize=64)
def _rules_cached(settings: Settings) -> _Rules:
    return _Rules(settings)


def _rules(settings: Settings, check_start: bool = True) -> _Rules:
    return _rules_cached(settings) if check_start else _Rules(settings)


# ---------------------------------------------------------------- the mutable core


FG_SQUARES = tuple(tuple(sq for sq in SQUARES if IN_FG[c][sq]) for c in (0, 1))


EMPTY_CELLS = bytes(p == 0 for p in range(256))  # translate tables
OWN_PIECES = tuple(bytes(p != 0 and p >> 3 == c for p in range(256)) for c in (0, 1))  # translate tables
ENEMY_PIECES = (OWN_PIECES[1], OWN_PIECES[0])
# Per side to move, a piece's role in the capture pre-test: 1 own biy or shatra, 2 own slider, 4 enemy piece.
ROLES = tuple(
    bytes(0 if not p else 4 if p >> 3 != c else 1 if p & 7 in (K, P) else 2 for p in range(256)) for c in (0, 1)
)


def _piece_counts(b) -> tuple[tuple[int, int], int]:
    """(pieces of each side in its own fortress and gate, pieces on the board) for ``_Board.fg``/``total``."""
    fg = tuple(sum(1 for sq in FG_SQUARES[c] if b[sq] and b[sq] >> 3 == c) for c in (0, 1))
    return fg, 98 - bytes(b).count(0)


def _draw_reason(rules: _Rules, hist, noprogress: int, total: int, bare: int, ply: int) -> str | None:
    """The draw reason of D1-D4 for the position whose key is hist[-1], if any."""
    if rules.repetition and hist and hist.count(hist[-1]) >= rules.repetition:
        return "repetition"
    if rules.no_progress and noprogress >= rules.no_progress:
        return "no-progress"
    if rules.bare and total == 2 and bare >= rules.bare:
        return "bare-biys"
    if rules.max_plies and ply >= rules.max_plies:
        return "max-plies"
    return None


class _Board:
    """A mutable position with make/unmake; the engine behind every public method."""

    __slots__ = (
        "rules", "b", "side", "tem", "ep", "np", "ply", "urg", "fg", "total", "winner", "bare", "hist",
    )

    def __init__(self, rules: _Rules, board, side, tem, ep, noprogress, ply, urgent, winner, bare, hist=(),
                 counts=None):
        """``hist`` is kept as given: a tuple for reading, a list where perft pushes and pops keys."""
        self.rules = rules
        self.b = bytearray(board)
        self.side = side
        self.tem = list(tem)
        self.ep = ep
        self.np = noprogress
        self.ply = ply
        self.urg = urgent
        self.winner = winner
        self.bare = bare
        self.hist = hist
        if counts is None:
            counts = _piece_counts(board)
        self.fg = list(counts[0])
        self.total = counts[1]

    def key(self):
        """FEN fields 1-4 (board with urgent marks, side, temdeks, ep): what repetition compares."""
        return (bytes(self.b), self.side, self.tem[0], self.tem[1], self.ep, self.urg)

    # ------------------------------------------------------------ helpers

    def available(self, c: int) -> tuple[int, ...]:
        """Promotion types side c may choose now (book §5.11, A11)."""
        on_board, pool = bytes(self.b), self.rules.pool
        return tuple(t for t in (Q, R, B) if on_board.count(t | c << 3) < pool[t])

    def drawn(self) -> str | None:
        """The draw reason of D1-D4 for the current position (whose key is hist[-1]), if any."""
        return _draw_reason(self.rules, self.hist, self.np, self.total, self.bare, self.ply)

    def own_squares(self, cells):
        """The squares of the side to move's pieces in name order; ``cells`` is ``bytes(self.b)``."""
        rules = self.rules
        own = cells.translate(OWN_PIECES[self.side])
        return compress(rules.squares_by_name, rules.pieces_by_name(own))

    def field_squares(self, cells):
        """The squares of the side to move's pieces outside its own fortress and gate."""
        c = self.side
        return compress(FIELD_RANGES[c], cells[FIELD_SLICES[c]].translate(OWN_PIECES[c]))

    # ------------------------------------------------------------ captures

    def _jumps(self, s, t, caps, first, restricted, biy):
        """The jumps (captured square, landing squares) from s for a piece of type t of the side to move."""
        b, c = self.b, self.side
        myfg = IN_FG[c]
        res = []
        if t == K or t == P:
            if t == K:
                hops = HOPS[s]
            elif REL[c][s] == 14:
                hops = SIDEWAYS_HOPS[s]  # an unpromoted shatra on its last rank (book §5.11)
            else:
                hops = self.rules.shatra_hops[c][s]
            enemy = ENEMY_PIECES[c]
            for v, land in hops:
                if not enemy[b[v]] or b[land] or v in caps:
                    continue
                if restricted and myfg[land] and not (biy and land == GATE[c]):
                    continue
                res.append((v, (land,)))
            if t == P and first and self.ep >= 0 and REL[c][s] == 8:
                res.extend(self._en_passant(s))
            return res
        for ray in SLIDER_LINES[t][s]:
            squares = iter(ray)
            for v in squares:  # to the nearest piece
                if b[v]:
                    break
            else:
                continue
            if b[v] >> 3 == c or v in caps:
                continue
            lands = []
            for land in squares:
                if b[land]:
                    break
                if not (restricted and myfg[land]):
                    lands.append(land)
            if lands:
                res.append((v, tuple(lands)))
        return res

    def _en_passant(self, s):
        """The en-passant jump (book §5.10) of the shatra on s, if the ep square allows one."""
        b, c = self.b, self.side
        m = self.ep
        pawn = STEP[m][FORWARD[1 - c]]
        if pawn < 0 or b[pawn] != (P | (1 - c) << 3) or s not in (STEP[pawn][E_], STEP[pawn][W_]):
            return []
        d = DIR_OF_STEP[(FILE_OF[m] - FILE_OF[s], RANK_OF[m] - RANK_OF[s])]
        land = STEP[m][d]
        if land < 0 or b[land] or b[m]:
            return []
        return [(pawn, (land,))]

    def _capturer_candidates(self, cells) -> int:
        """A byte board of the side to move's pieces that may have a first jump (a superset: ``_jumps`` decides).

        A jump needs an enemy piece with an empty square behind it along the jump's direction (its "prey" on
        that direction); a biy or shatra must stand right before the prey, a slider must see it along its ray.
        """
        b = self.b
        x = int.from_bytes(cells.translate(ROLES[self.side]), "little")
        steppers = x & ON_BOARD
        sliders = x >> 1 & ON_BOARD
        theirs = x >> 2 & ON_BOARD
        occupied = steppers | sliders | theirs
        empty = ON_BOARD ^ occupied
        prey = [0] * 8
        before_prey = 0  # the squares right before a prey, along its direction
        for d, back, k, jumpable in AXES:
            exposed = theirs & jumpable
            prey[d] = ahead = exposed & empty >> k  # jumped along d, landing k bits higher
            prey[back] = behind = exposed & empty << k
            before_prey |= ahead >> k | behind << k
        candidates = steppers if self.ep >= 0 else steppers & before_prey  # en passant jumps over an empty square
        if sliders:  # those boxed in by their own pieces (as in an untouched fortress) cannot jump
            free = empty | theirs
            free |= free >> 8 | free << 8  # a square or a neighbour along its rank is free
            sliders &= free | free >> 56 | free << 56  # ... or along its file or diagonals
        while sliders:
            low = sliders & -sliders
            sliders ^= low
            s = low.bit_length() >> 3
            for d, ray, upwards in SLIDER_RAYS[b[s] & 7][s]:
                if ray & prey[d]:
                    blockers = ray & occupied  # the nearest one is the only piece the slider can jump
                    nearest = blockers & -blockers if upwards else 1 << blockers.bit_length() - 1
                    if nearest & prey[d]:
                        candidates |= low
                        break
        return candidates

    def captures(self, cells=None):
        """Every capture series of the side to move: (moves, any compulsory capturer, optional capturers).

        ``cells`` is ``bytes(self.b)`` if the caller has it.
        """
        b, c, rules = self.b, self.side, self.rules
        candidates = self._capturer_candidates(cells or bytes(b))
        if not candidates:
            return [], False, []
        found = {}
        compulsory = False
        optional_squares = []
        while candidates:
            low = candidates & -candidates
            candidates ^= low
            s = low.bit_length() >> 3
            p = b[s]
            t = p & 7
            restricted = self.tem[c] and not IN_FG[c][s]
            optional = t == K or (t == P and s == GATE[1 - c] and rules.settings.gate_shatra_optional_capture)
            before = len(found)
            self._series(s, p, optional, restricted, found)
            if len(found) == before:  # no first jump after all
                continue
            if optional:
                optional_squares.append(s)
            else:
                compulsory = True
        return list(found.values()), compulsory, optional_squares

    def _series(self, s0, p0, optional, restricted, found):
        """Depth-first search of the capture series of the piece on s0 (book §5.6-5.11), into found."""
        b, c, rules = self.b, self.side, self.rules
        st = rules.settings
        biy = (p0 & 7) == K
        rel = REL[c]
        jumps = self._jumps
        jump_names = rules.jump_names
        # Each entry: the series so far ends on s with the piece as type t, having jumped caps along path
        # (written label); js are the jumps from s if already known (() once the series is over).
        stack = [(s0, p0 & 7, (), (), rules.names[s0], None)]
        b[s0] = 0  # the start square counts as empty during the series
        try:
            while stack:
                s, t, caps, path, label, js = stack.pop()
                if js is None:
                    js = jumps(s, t, caps, not caps, restricted, biy)
                if caps and (optional or not js):
                    self._series_found(s0, s, t, caps, path, label, found)
                for v, lands in js:
                    ncaps = caps + (v,)
                    over = (b[v] & 7) == K and st.biy_capture_ends_series
                    onward = None
                    if not over and len(lands) > 1 and not optional:
                        onward = {land: jumps(land, t, ncaps, False, restricted, biy) for land in lands}
                        going_on = [land for land in lands if onward[land]]
                        if going_on:
                            lands = going_on[:1] if rules.first_continuing else going_on
                    for land in lands:
                        landed = label + jump_names[land]
                        if t == P and st.promote_mid_series and rel[land] == 14 and rel[s] != 14 and self.available(c):
                            for nt in self.available(c):  # promoted on arrival (A9), it jumps as its new type
                                letter = LETTERS[nt].upper()
                                after = () if over else None
                                stack.append((land, nt, ncaps, path + ((land, letter),), landed + "=" + letter, after))
                        else:
                            after = () if over else onward and onward[land]
                            stack.append((land, t, ncaps, path + ((land, ""),), landed, after))
        finally:
            b[s0] = p0

    def _series_found(self, s0, land, t, caps, path, label, found):
        """A series ends on land: record it (promoting at its end unless it promoted on the way, A9)."""
        c = self.side
        rel = REL[c]
        if t == P and not self.rules.settings.promote_mid_series and rel[land] == 14 and rel[s0] != 14:
            types = self.available(c)
            if types:
                for nt in types:
                    letter = LETTERS[nt].upper()
                    promoted = path[:-1] + ((land, letter),)
                    if (s0, promoted) not in found:
                        found[s0, promoted] = (s0, land, nt | c << 3, caps, promoted, 2, label + "=" + letter)
                return
        if (s0, path) not in found:
            found[s0, path] = (s0, land, t | c << 3, caps, path, 2, label)

    # ------------------------------------------------------------ quiet moves

    def _great_road(self, s, p, out, rows):
        """The initial-reserve batyr or tura on the d-file slides on beyond its own half (A17)."""
        b, c = self.b, self.side
        rel = REL[c]
        row = rows.steps(s, p)
        for land in RAY[s][FORWARD[c]]:
            if b[land]:
                break
            if rel[land] >= 8:
                out.append(row[land])

    def _quiet_piece(self, s, p, out, rows, cells):
        """Quiet moves and drops of the piece p on s (book §5.3-5.5), appended to out; for reserves and intruders.

        ``cells`` is ``bytes(self.b)``.
        """
        c, rules = self.side, self.rules
        st = rules.settings
        t = p & 7
        tem = self.tem[c]
        own = IN_FG[c][s]
        intruder = IN_FG[1 - c][s]
        before = len(out)
        if own and tem:  # initial reserve
            out += compress(rows.drops(s, p), rules.drop_mask(c, cells))
            if FILE_OF[s] == 3 and (t == Q or t == R) and st.great_road:
                self._great_road(s, p, out, rows)
            if not st.reserve_ordinary_moves:
                return
        elif own:  # secondary reserve
            if st.secondary_reserve_drops:
                out += compress(rows.drops(s, p), rules.drop_mask(c, cells))
        elif intruder:
            if (t != P or st.intruder_shatra_drops) and (s != GATE[1 - c] or st.gate_intruders_drop):
                out += compress(rows.drops(s, p), rules.drop_mask(1 - c, cells))
        if len(out) > before and not rules.drops_distinct:  # a drop and a move with the same label are one move
            seen = set(map(rows.label, out[before:]))
            ordinary = []
            self._ordinary(s, p, t, tem, ordinary, rows)
            out.extend(m for m in ordinary if rows.label(m) not in seen)
        else:
            self._ordinary(s, p, t, tem, out, rows)

    def _ordinary(self, s, p, t, tem, out, rows):
        b, c, rules = self.b, self.side, self.rules
        myfg = IN_FG[c]
        row = rows.steps(s, p)
        if t == P:
            rel = REL[c]
            rr = rel[s]
            for land in rules.pawn_lands[c][s]:
                if not b[land] and not (tem and myfg[land]):
                    if rel[land] == 14 and rr != 14:
                        self._pawn_arrival(s, land, p, rr, out, rows)
                    else:
                        out.append(row[land])
            double = rules.double_steps[c][s]
            if double and not b[double[0]] and not b[double[1]]:
                out.append(row[double[1]])
            if rules.settings.tower_squares and s in ENEMY_TOWERS[c]:
                for land in FORTRESS[1 - c]:
                    if not b[land]:
                        self._pawn_arrival(s, land, p, rr, out, rows)
        elif t == K:
            allow_gate = rules.settings.biy_may_step_onto_gate
            for land in NEIGHBOURS[s]:
                if not b[land] and not (tem and myfg[land] and not (allow_gate and land == GATE[c])):
                    out.append(row[land])
        else:
            for d in SLIDES[t]:
                for land in RAY[s][d]:
                    if b[land]:
                        break
                    if not (tem and myfg[land]):
                        out.append(row[land])

    def _pawn_arrival(self, s, land, p, rr, out, rows):
        c = self.side
        if REL[c][land] == 14 and rr != 14:
            types = self.available(c)
            if types:
                for nt in types:
                    out.append(rows.move(s, land, nt | c << 3, LETTERS[nt].upper()))
                return
        out.append(rows.move(s, land, p, ""))

    def quiet(self, rows, squares=None, cells=None):
        """The quiet moves and drops of the pieces on ``squares`` (own pieces, all of them by default).

        ``rows`` (a ``_QuietRows``) says how a move is written; ``cells`` is ``bytes(self.b)`` if the caller has it.
        """
        b, c, rules = self.b, self.side, self.rules
        cells = cells or bytes(b)
        tem = self.tem[c]
        out = []
        if squares is None:
            if tem and not rules.settings.reserve_ordinary_moves:  # the initial reserve only drops
                drops, great_road = rows.reserve(c, cells)
                out += compress(drops, cycle(rules.drop_mask(c, cells)))
                ahead = STEP_FORWARD[c]
                for s in great_road:
                    if not b[ahead[s]]:
                        self._great_road(s, b[s], out, rows)
                squares = self.field_squares(cells)
            else:
                squares = self.own_squares(cells)
        in_fg = IN_FG[c]
        in_enemy_fg = IN_FG[1 - c]
        field_shatra = rows.field_shatra[c]
        for s in squares:
            p = b[s]
            if p & 7 == P and (steps := field_shatra[s]) is not None:  # the commonest piece, written out here
                for empty, land, move in steps:
                    if not b[empty] and not b[land]:
                        out.append(move)
            elif in_fg[s] or in_enemy_fg[s]:
                self._quiet_piece(s, p, out, rows, cells)
            else:
                self._ordinary(s, p, p & 7, tem, out, rows)
        return out

    def urgent_drops(self, rows):
        urg = self.urg
        if not urg:
            return []
        b, c = self.b, self.side
        out = []
        mask = self.rules.drop_mask(c, bytes(b))
        for s in FORTRESS[c] + (GATE[c],):
            if urg & BIT[s] and b[s] and b[s] >> 3 == c:
                out += compress(rows.drops(s, b[s]), mask)
        return out

    def legal_parts(self, cells, rows):
        """The legal move set of book §5.12 but for the biy-safety filter (A22), ignoring whether the game is over:
        (capture series as move tuples, quiet moves and drops as ``rows`` writes them); ``cells`` is ``bytes(self.b)``.
        """
        caps, compulsory, optional_squares = self.captures(cells)
        if compulsory:
            return caps, []
        st = self.rules.settings
        urgent = self.urgent_drops(rows)
        if caps:
            if urgent and st.urgent_drop_overrides_decline:
                return caps, urgent
            if st.decliner_must_move_itself:
                return caps, self.quiet(rows, optional_squares, cells)
        return caps, urgent or self.quiet(rows, None, cells)

    def legal(self, cells=None):
        """The legal move set of book §5.12, ignoring whether the game is over; ``cells`` is ``bytes(self.b)``."""
        caps, quiet = self.legal_parts(cells or bytes(self.b), self.rules.move_rows)
        moves = caps + quiet
        if not self.rules.settings.may_leave_biy_capturable:
            moves = [m for m in moves if not self._leaves_biy_capturable(m)]
        return moves

    def _leaves_biy_capturable(self, m):
        undo = self.make(m)
        try:
            if self.winner is not None:
                return False
            return any(any((self.b[v] & 7) == K for v in series[3]) for series in self.captures()[0])
        finally:
            self.unmake(m, undo)

    # ------------------------------------------------------------ make / unmake

    def make(self, m):
        frm, to, piece, caps, path, _, _ = m
        b = self.b
        c = self.side
        tem = self.tem
        fg = self.fg
        moving = b[frm]
        myfg = IN_FG[c]
        undo = (
            moving, self.ep, self.np, self.urg, tem[0], tem[1], fg[0], fg[1], self.winner, self.bare, None
        )
        reserve = tem[c] and myfg[frm]
        b[frm] = 0
        if myfg[frm]:
            fg[c] -= 1
        if not caps:
            b[to] = piece
            if myfg[to]:
                fg[c] += 1
            if self.urg:
                self.urg &= ~BIT[frm]
            if tem[c] and not fg[c]:
                tem[c] = False
            if (moving & 7) == P:
                self.np = 0
                self.ep = self._ep_after(frm, to) if (to - frm == 14 or frm - to == 14) else -1
            else:
                self.np = 0 if reserve else self.np + 1
                self.ep = -1
            self.side = c ^ 1
            self.ply += 1
            if self.total == 2:
                self.bare += 1
            return undo
        e = c ^ 1
        taken = [b[v] for v in caps]
        for v in caps:
            b[v] = 0
        b[to] = piece
        if myfg[to]:
            fg[c] += 1
        efg = IN_FG[e]
        urg = self.urg & ~BIT[frm]
        for v in caps:
            if efg[v]:
                fg[e] -= 1
            urg &= ~BIT[v]
        fg_before = undo[6 + c]
        mid_series_off = (
            reserve and self.rules.settings.temdek_off_mid_series and fg_before == 1
            and any(not myfg[land] for land, _ in path)
        )
        if reserve and myfg[to] and not mid_series_off:
            urg |= BIT[to]
        self.urg = urg
        for x in taken:
            if (x & 7) == K:
                self.winner = c
        promoted = self._delayed_promotions(e, taken) if self.rules.settings.delayed_promotion else None
        if tem[c] and (not fg[c] or mid_series_off):
            tem[c] = False
        if tem[e] and not fg[e]:
            tem[e] = False
        self.ep = -1
        self.np = 0
        self.total -= len(caps)
        self.bare = 0
        self.side = e
        self.ply += 1
        return undo[:10] + ((taken, promoted),)

    def _ep_after(self, frm, to):
        """The skipped square if the opponent now has an en-passant jump (normalised ep field), else -1."""
        if not self.rules.settings.en_passant:
            return -1
        b = self.b
        e = self.side ^ 1
        mid = (frm + to) >> 1
        enemy_pawn = P | e << 3
        for s in (STEP[to][E_], STEP[to][W_]):
            if s >= 0 and b[s] == enemy_pawn:
                d = DIR_OF_STEP[(FILE_OF[mid] - FILE_OF[s], RANK_OF[mid] - RANK_OF[s])]
                land = STEP[mid][d]
                if land >= 0 and not b[land] and REL[e][s] == 8:
                    return mid
        return -1

    def _delayed_promotions(self, e, taken):
        """Waiting shatras of e take the types of e's captured Q/R/B in capture order, files c, d, e (A10)."""
        types = [x & 7 for x in taken if (x & 7) in (Q, R, B)]
        if not types:
            return None
        b = self.b
        waiting = [sq for sq in LAST_RANK[e] if b[sq] == P | e << 3]
        if not waiting:
            return None
        changed = []
        for t in types:
            if not waiting:
                break
            if t in self.available(e):
                sq = waiting.pop(0)
                changed.append((sq, b[sq]))
                b[sq] = t | e << 3
        return changed

    def unmake(self, m, undo):
        frm, to, _, caps, _, _, _ = m
        b = self.b
        b[to] = 0
        b[frm] = undo[0]
        self.ep, self.np, self.urg = undo[1], undo[2], undo[3]
        tem, fg = self.tem, self.fg
        tem[0], tem[1], fg[0], fg[1] = undo[4], undo[5], undo[6], undo[7]
        self.winner, self.bare = undo[8], undo[9]
        extra = undo[10]
        if extra is not None:
            taken, promoted = extra
            if promoted:
                for sq, old in reversed(promoted):
                    b[sq] = old
            for v, x in zip(caps, taken):
                b[v] = x
            self.total += len(caps)
        self.side ^= 1
        self.ply -= 1

    # ------------------------------------------------------------ perft

    def perft(self, depth: int) -> int:
        """Leaves depth plies below; the current position's key is hist[-1]."""
        if self.winner is not None or self.drawn():
            return 0
        moves = self.legal()
        make, unmake = self.make, self.unmake
        if depth == 1:
            for m in moves:
                unmake(m, make(m))
            return len(moves)
        total = 0
        hist = self.hist
        for m in moves:
            undo = make(m)
            hist.append(self.key())
            total += self.perft(depth - 1)
            hist.pop()
            unmake(m, undo)
        return total


# ---------------------------------------------------------------- notation


def _read_fen(text: str, rules: _Rules):
    """The fields of a position string, checked against book §4.1; raises BadPosition naming the fault."""
    if not isinstance(text, str):
        raise BadPosition(f"shatra: position must be a string, not {type(text).__name__}")
    fields = text.split()
    if len(fields) != 6:
        raise BadPosition(
            f"shatra: position needs 6 fields (board side temdeks ep noprogress moveno), got {len(fields)}"
        )
    board_text, side_text, tem_text, ep_text, np_text, move_text = fields
    groups = board_text.split("/")
    if len(groups) != 14:
        raise BadPosition(f"shatra: board needs 14 ranks separated by '/', got {len(groups)}")
    board = [0] * 98
    urgent = 0
    for group, rank in zip(groups, range(14, 0, -1)):
        squares = RANK_SQUARES[rank]
        at = 0
        mark = False
        last_digit = False
        for ch in group:
            if ch == "!":
                if mark:
                    raise BadPosition(f"shatra: rank {rank} {group!r}: '!!'")
                mark = True
                last_digit = False
                continue
            if ch.isdigit():
                if mark:
                    raise BadPosition(f"shatra: rank {rank} {group!r}: '!' must precede a piece letter")
                if last_digit or ch == "0":
                    raise BadPosition(f"shatra: rank {rank} {group!r}: bad empty-square count")
                at += int(ch)
                last_digit = True
                if at > len(squares):
                    break
                continue
            if ch not in PIECE_OF_LETTER:
                raise BadPosition(f"shatra: rank {rank} {group!r}: bad piece letter {ch!r}")
            if at >= len(squares):
                at += 1
                break
            board[squares[at]] = PIECE_OF_LETTER[ch]
            if mark:
                urgent |= BIT[squares[at]]
            mark = False
            last_digit = False
            at += 1
        if mark:
            raise BadPosition(f"shatra: rank {rank} {group!r}: '!' must precede a piece letter")
        if at != len(squares):
            raise BadPosition(
                f"shatra: rank {rank} {group!r} covers {at} squares, it has {len(squares)}"
            )
    if side_text not in ("w", "b"):
        raise BadPosition(f"shatra: side to move must be w or b, got {side_text!r}")
    side = 0 if side_text == "w" else 1
    if tem_text not in ("-", "T", "t", "Tt"):
        raise BadPosition(f"shatra: temdek field must be -, T, t or Tt, got {tem_text!r}")
    tem = ["T" in tem_text, "t" in tem_text]
    for name, value in (("noprogress", np_text), ("move number", move_text)):
        if not value.isdigit() or not value.isascii():
            raise BadPosition(f"shatra: {name} must be a non-negative integer, got {value!r}")
    noprogress, moveno = int(np_text), int(move_text)
    if moveno < 1:
        raise BadPosition(f"shatra: move number must be at least 1, got {moveno}")

    biys = [[sq for sq in SQUARES if board[sq] == K | c << 3] for c in (0, 1)]
    for c, colour in ((0, WHITE), (1, BLACK)):
        if len(biys[c]) > 1:
            raise BadPosition(f"shatra: {colour} has {len(biys[c])} biys")
    if not biys[0] and not biys[1]:
        raise BadPosition("shatra: both biys are missing")
    winner = None
    for c, colour in ((0, WHITE), (1, BLACK)):
        if not biys[c]:
            if c != side:
                raise BadPosition(f"shatra: {colour} has no biy, but only the side to move can have lost it")
            winner = 1 - c
    for c, colour in ((0, WHITE), (1, BLACK)):
        counts = {t: sum(1 for sq in SQUARES if board[sq] == t | c << 3) for t in (Q, R, B)}
        for t in (Q, R, B):
            if counts[t] > rules.pool[t]:
                raise BadPosition(
                    f"shatra: {colour} has {counts[t]} pieces {LETTERS[t]!r}, the army allows {rules.pool[t]}"
                )
        if tem[c] and not any(board[sq] and board[sq] >> 3 == c for sq in SQUARES if IN_FG[c][sq]):
            raise BadPosition(
                f"shatra: {colour}'s temdek is on but {colour} has no piece in its fortress or gate"
            )
        waiting = [sq for sq in LAST_RANK[c] if board[sq] == P | c << 3]
        if waiting and rules.settings.delayed_promotion and any(counts[t] < rules.pool[t] for t in (Q, R, B)):
            raise BadPosition(
                f"shatra: {colour} shatra on {ALGEBRAIC_NAMES[waiting[0]]} would have promoted "
                "(a type is available)"
            )
    for sq in SQUARES:
        if urgent & BIT[sq]:
            c = board[sq] >> 3
            if not (IN_FG[c][sq] and tem[c]):
                raise BadPosition(
                    f"shatra: urgent mark on {ALGEBRAIC_NAMES[sq]}, "
                    "which is not a reserve piece in its own fortress"
                )
    ep = -1
    if ep_text != "-":
        if ep_text not in rules.square_of:
            raise BadPosition(f"shatra: bad en-passant square {ep_text!r}")
        ep = rules.square_of[ep_text]
        mover = 1 - side  # the side that double-stepped
        pawn = STEP[ep][FORWARD[mover]]
        origin = STEP[ep][FORWARD[1 - mover]]
        if (REL[mover][ep] != 6 or board[ep] or pawn < 0 or board[pawn] != P | mover << 3
                or origin < 0 or board[origin]):
            raise BadPosition(
                f"shatra: en-passant square {ep_text} is not behind a shatra that just double-stepped"
            )
        probe = _Board(rules, board, side, tem, ep, 0, 0, urgent, None, 0, ())
        if not any(probe._en_passant(s) for s in (STEP[pawn][E_], STEP[pawn][W_])
                   if s >= 0 and board[s] == P | side << 3):
            raise BadPosition(
                f"shatra: en-passant square {ep_text} given but no en-passant jump exists (write -)"
            )
    ply = 2 * (moveno - 1) + side
    return board, side, tem, ep, noprogress, ply, urgent, winner


# A rank's squares are consecutive: board -> the slice of each rank, rank 14 first.
_RANK_SLICES = tuple(slice(RANK_SQUARES[rank][0], RANK_SQUARES[rank][-1] + 1) for rank in range(14, 0, -1))
_RANKS = itemgetter(*_RANK_SLICES)
_CELL_TEXT = bytes(ord(LETTER_OF_PIECE.get(p, "1")) for p in range(256))  # a piece's letter, "1" if empty
TEMDEK_TEXT = {(False, False): "-", (True, False): "T", (False, True): "t", (True, True): "Tt"}


class _RankTexts(BoundedCache):
    """The pieces of one rank (a slice of the board) -> its FEN group without urgent marks, written once."""

    def __missing__(self, pieces: bytes) -> str:
        return self.keep(pieces, digits_for_empty_runs(pieces.translate(_CELL_TEXT).decode(), 7))


_RANK_TEXT = _RankTexts(100_000)


def _rank_groups(board: bytes, earlier=None) -> list[str]:
    """The FEN groups of the ranks without urgent marks, rank 14 first.

    ``earlier`` is (the groups of an earlier position, the squares changed since): only their ranks are redone.
    """
    if earlier is None:
        return list(map(_RANK_TEXT.__getitem__, _RANKS(board)))
    groups, changed = earlier
    groups = groups.copy()
    for sq in changed:
        i = 14 - RANK_OF[sq]
        groups[i] = _RANK_TEXT[board[_RANK_SLICES[i]]]
    return groups


def _marked_board_text(board, urgent) -> str:
    """The board field of a position with urgent marks."""
    return "/".join(
        _rank_text([board[sq] for sq in RANK_SQUARES[rank]], [urgent & BIT[sq] for sq in RANK_SQUARES[rank]])
        for rank in range(14, 0, -1)
    )


def _rank_text(pieces, urgent_marks=()) -> str:
    """One rank's FEN group; ``urgent_marks[i]`` (if given) puts '!' before the i-th square's piece."""
    out, run = [], 0
    for i, p in enumerate(pieces):
        if not p:
            run += 1
            continue
        if run:
            out.append(str(run))
            run = 0
        out.append("!" + LETTER_OF_PIECE[p] if urgent_marks and urgent_marks[i] else LETTER_OF_PIECE[p])
    if run:
        out.append(str(run))
    return "".join(out)


# ---------------------------------------------------------------- the public position


class _SortedLabels:
    """A sorted list of move labels seen as a collection whose ``in`` bisects rather than compares every label."""

    __slots__ = ("labels",)

    def __init__(self, labels: list[str]):
        self.labels = labels

    def __contains__(self, label) -> bool:
        labels = self.labels
        i = bisect_left(labels, label)
        return i < len(labels) and labels[i] == label

    def __iter__(self):
        return iter(self.labels)

    def __len__(self) -> int:
        return len(self.labels)


class ShatraPosition(Position):
    """An immutable Altai Shatra position; ``play`` returns a new one."""

    __slots__ = ("settings", "_rules", "_b", "_side", "_tem", "_ep", "_np", "_ply", "_urg", "_winner",
                 "_bare", "_history", "_known", "_first", "_captured", "_moves", "_labels", "_outcome", "_text",
                 "_groups", "_earlier", "_counts")

    def __init__(self, settings, rules, board, side, tem, ep, noprogress, ply, urgent, winner, bare, history,
                 known, captured, counts):
        """``board`` is bytes, ``tem`` a pair, ``history`` the earlier keys, ``known`` the (labels, moves) of each
        (as ``_legal`` leaves them), ``counts`` as ``_piece_counts``."""
        self.settings = settings
        self._rules = rules
        self._b = board
        self._side = side
        self._tem = tem
        self._ep = ep
        self._np = noprogress
        self._ply = ply
        self._urg = urgent
        self._winner = winner
        self._bare = bare
        self._history = history + ((board, side, tem[0], tem[1], ep, urgent),)
        self._known = known
        self._first = None  # where the current key first comes in the history, once _legal looked
        self._captured = captured
        self._moves = None
        self._labels = None
        self._outcome = False
        self._text = None
        self._groups = None  # the board's rank groups once text() wrote them (without urgent marks)
        self._earlier = None  # (the groups of the position before, the squares play changed) if known
        self._counts = counts

    def _board(self, hist=()) -> _Board:
        return _Board(self._rules, self._b, self._side, self._tem, self._ep, self._np, self._ply, self._urg,
                      self._winner, self._bare, hist, self._counts)

    @property
    def turn(self) -> str:
        return WHITE if self._side == 0 else BLACK

    @property
    def ply(self) -> int:
        return self._ply

    @property
    def captured(self) -> tuple[str, ...]:
        return self._captured

    def _legal(self) -> list[str]:
        """The labels of the legal moves (game over or not), sorted.

        Quiet moves are generated as labels only (play rebuilds the one it needs); ``_moves`` keeps the capture
        series (and, under the biy-safety filter, every move).
        """
        if self._labels is None:
            hist = self._history
            self._first = hist.index(hist[-1])
            if self._first < len(hist) - 1:  # a repeated position: its legal moves are those it had before
                self._labels, self._moves = self._known[self._first]
                return self._labels
            rules = self._rules
            if rules.settings.may_leave_biy_capturable:
                self._moves, labels = self._board().legal_parts(self._b, rules.label_rows)
                if self._moves:
                    labels += map(LABEL, self._moves)
            else:
                self._moves = self._board().legal(self._b)
                labels = list(map(LABEL, self._moves))
            labels.sort()
            self._labels = labels
        return self._labels

    def outcome(self) -> Outcome | None:
        if self._outcome is False:
            self._outcome = self._compute_outcome()
        return self._outcome

    def _compute_outcome(self) -> Outcome | None:
        if self._winner is not None:
            return Outcome(WHITE if self._winner == 0 else BLACK, "biy-captured")
        if not self._legal():
            if not self.settings.no_legal_move_loses:
                return Outcome(NONE, "no-legal-move")
            return Outcome(BLACK if self._side == 0 else WHITE, "no-legal-move")
        hist = self._history[self._first:]  # the earlier keys cannot be the current one
        reason = _draw_reason(self._rules, hist, self._np, self._counts[1], self._bare, self._ply)
        return Outcome(NONE, reason) if reason else None

    def legal_moves(self) -> list[str]:
        if self.outcome() is not None:
            return []
        return self._legal()[:]

    def canonical_action(self, action: str) -> str:
        labels = self._labels
        if self._outcome is None and labels is not None and type(action) is str:  # a legal action, the usual case
            i = bisect_left(labels, action)
            if i < len(labels) and labels[i] == action:
                return action
        return super().canonical_action(action)

    def _legal_actions(self) -> _SortedLabels:
        return _SortedLabels(self._legal() if self.outcome() is None else [])

    def _why_illegal(self, wanted: str) -> str:
        """A short reason for an action that is not legal, where one is cheap to find."""
        names = self._rules.square_of
        parts = wanted.replace("*", "-").replace("x", "-").split("=")[0].split("-")
        if len(parts) < 2 or any(part not in names for part in parts):
            return "malformed: expected FROM-TO, FROM-TO=Q|R|B or a series FROMxTOxTO..."
        piece = self._b[names[parts[0]]]
        if not piece or piece >> 3 != self._side:
            return f"no {self.turn} piece on {parts[0]}"
        legal = self._legal()
        if any(label.lower().startswith(wanted + "x") for label in legal):
            return "the series must go on"
        if all("x" in label for label in legal):
            return "a capture is compulsory"
        if all(not label.lower().startswith(parts[0] + "-") and not label.lower().startswith(parts[0] + "x")
               for label in legal):
            return f"the piece on {parts[0]} has no legal move here"
        return f"not a legal move of the piece on {parts[0]}"

    def _move(self, label: str) -> tuple:
        """The move tuple of a legal action's label: a capture series as generated, a quiet move or drop rebuilt from
        its squares (its label names it fully)."""
        if "x" in label:
            return next(m for m in self._moves if m[6] == label)
        frm, to, letter = self._rules.quiet_labels.get(label) or self._rules.quiet_squares(label)
        piece = TYPE_OF_PROMOTION[letter] | self._side << 3 if letter else self._b[frm]
        return (frm, to, piece, (), letter, 0, label)

    def play(self, action: str) -> ShatraPosition:
        label = self.canonical_action(action)
        m = self._move(label)
        board = self._board()
        board.make(m)
        caps = m[3]
        names = self._rules.names
        # A capture removes a piece for good, so no earlier position can come back: repetition can forget them.
        history = () if caps else self._history
        known = () if caps else self._known + ((self._labels, self._moves),)
        after = ShatraPosition(
            self.settings, self._rules, bytes(board.b), board.side, (board.tem[0], board.tem[1]), board.ep,
            board.np, board.ply, board.urg, board.winner, board.bare, history, known,
            tuple([names[v] for v in caps]) if caps else (), (tuple(board.fg), board.total),
        )
        if self._groups is not None:
            # a capture may also promote the captured side's waiting shatras (A10)
            changed = m[:2] + caps + LAST_RANK[self._side ^ 1] if caps else m[:2]
            after._earlier = (self._groups, changed)
        return after

    def text(self) -> str:
        if self._text is None:
            tem = TEMDEK_TEXT[self._tem]
            ep = self._rules.names[self._ep] if self._ep >= 0 else "-"
            moveno = self._ply // 2 + 1
            if self._urg:
                board = _marked_board_text(self._b, self._urg)
            else:
                self._groups = _rank_groups(self._b, self._earlier)
                board = "/".join(self._groups)
            self._earlier = None
            self._text = f"{board} {'wb'[self._side]} {tem} {ep} {self._np} {moveno}"
        return self._text

    def _perft(self, depth: int) -> int:
        return self._board(list(self._history)).perft(depth)


def _parse(text: str, settings: Settings) -> ShatraPosition:
    rules = _rules(settings)
    board, side, tem, ep, noprogress, ply, urgent, winner = _read_fen(text, rules)
    # README: from a FEN, the bare-biys count (D3) is taken from the no-progress field.
    return ShatraPosition(settings, rules, bytes(board), side, tuple(tem), ep, noprogress, ply, urgent, winner,
                          noprogress, (), (), (), _piece_counts(board))


def _initial(settings: Settings) -> ShatraPosition:
    fields = settings.start_position.split()
    fields[1] = "w" if settings.first_side == WHITE else "b"
    return _parse(" ".join(fields), settings)


SHATRA = Game(
    id="shatra",
    ruleset=RULESET,
    settings_type=Settings,
    initial_position=_initial,
    parse_position=_parse,
    max_plies=MAX_PLIES,
)
ShatraPosition.game = SHATRA
