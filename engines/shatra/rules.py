"""The settings of Altai Shatra (docs/rules/shatra.md §6) and the tables each one turns into."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import chain
from operator import itemgetter

from ..core import BLACK, WHITE, BoundedCache
from .tables import (
    ALGEBRAIC_NAMES,
    EMPTY_CELLS,
    FG_SLICES,
    FILE_OF,
    HALF,
    IN_FG,
    LABEL,
    NUMERIC_NAMES,
    REACH,
    SQUARES,
    TYPE_OF_PROMOTION,
    P,
    Q,
    R,
    _double_steps,
    _field_shatra_steps,
    _shatra_hops,
    _shatra_lands,
)

RULESET = "shatra/2026.1"
START_FEN = "pqp/prp/brb/k/ppppppp/7/7/7/7/PPPPPPP/K/BRB/PRP/PQP w Tt - 0 1"
MAX_PLIES = 1000  # D4


COORDINATES = ("algebraic", "numeric")
LONG_JUMP_LANDINGS = ("any-continuing", "first-continuing")
DROP_SEPARATORS = ("-", "*")


@dataclass(frozen=True)
class Settings:
    """The decisions of docs/rules/shatra.md §6 (A1-A28, with A24's draws D1-D4), each with the book's default."""

    coordinates: str = "algebraic"  # A1: square names in actions and the ep field; or "numeric" (1-62)
    first_side: str = WHITE.value  # A2: White moves first
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


def _rules(settings: Settings) -> _Rules:
    return _rules_cached(settings)


