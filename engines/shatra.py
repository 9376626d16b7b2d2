"""Altai Shatra (game id ``shatra``): the referee for ``rules/shatra.md``.

The board is a list of 98 small ints, square ``(rank - 1) * 7 + file`` on the
7x14 grid (a1 = 0, g14 = 97); only the 62 squares of the book are ever
touched, because every step and ray is a precomputed table that stops at the
walls. A piece is ``type | colour << 3`` (white K=1 Q=2 R=3 B=4 P=5, black
9..13). ``_Board`` is the mutable make/unmake core shared by ``legal_moves``,
``play`` and ``perft``; ``ShatraPosition`` is the immutable face the rest of
the arena sees.

A move is a tuple ``(from, to, piece_after, captured_squares, path, kind)``:
``kind`` 0 is an ordinary quiet move, 1 a drop (the same move as an ordinary
one with the same squares unless the drop separator setting says otherwise),
2 a capture series whose ``path`` lists ``(landing, promotion letter)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter

from .core import (
    BLACK,
    NONE,
    WHITE,
    BadPosition,
    Game,
    Outcome,
    Position,
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
DIR_OF_STEP = {d: i for i, d in enumerate(DIRS)}

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
ENEMY_TOWERS = ((_sq("a10"), _sq("g10")), (_sq("a5"), _sq("g5")))  # A25 (Shatrabase), off by default
BIT = tuple(1 << sq for sq in range(98))


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


class _Rules:
    """Everything a settings instance decides, turned into tables once."""

    def __init__(self, s: Settings):
        self.settings = s
        self.names = ALGEBRAIC_NAMES if s.coordinates == "algebraic" else NUMERIC_NAMES
        self.square_of = {name: sq for sq, name in enumerate(self.names) if name}
        self.drop_sep = s.drop_separator
        self.labels: dict = {}  # move tuple -> its notation; labels depend only on the move and these rules
        self.drops_distinct = s.drop_separator != "-"
        self.drop_squares = tuple(
            tuple(sq for sq in HALF[c] if s.drops_on_great_road or FILE_OF[sq] != 3) for c in (0, 1)
        )
        # Quiet steps of a shatra by colour and relative rank (book §5.3 table).
        self.pawn_steps = []
        self.double_ranks = (5, 6) if not s.double_step_from_rank5_only else (5,)
        for c in (0, 1):
            fwd = FORWARD[c]
            diag = (NE, NW) if c == 0 else (SE, SW)
            table = {}
            for rr in range(1, 15):
                if rr <= 4:
                    table[rr] = (fwd,) if s.fortress_shatra_steps_north else ()
                elif rr <= 6:
                    table[rr] = (fwd,)
                elif rr == 7:
                    table[rr] = (fwd,) + diag
                elif rr <= 13:
                    table[rr] = (fwd,) + diag + SIDEWAYS
                else:
                    table[rr] = SIDEWAYS
            self.pawn_steps.append(table)
        back = (S_, SE, SW), (N_, NE, NW)
        self.pawn_jumps = tuple(
            ALL8 if s.shatra_captures_backward else tuple(d for d in ALL8 if d not in back[c]) for c in (0, 1)
        )
        self.pool = {t: s.promotion_pool.count(letter) for letter, t in TYPE_OF_PROMOTION.items()}
        self.first_continuing = s.long_jump_landing == "first-continuing"
        self.repetition = s.repetition_draw_count
        self.no_progress = s.no_progress_plies
        self.bare = s.bare_biys_plies
        self.max_plies = s.max_plies


@lru_cache(maxsize=64)
def _rules_cached(settings: Settings) -> _Rules:
    return _Rules(settings)


def _rules(settings: Settings, check_start: bool = True) -> _Rules:
    return _rules_cached(settings) if check_start else _Rules(settings)


# ---------------------------------------------------------------- the mutable core


FG_SQUARES = tuple(tuple(sq for sq in SQUARES if IN_FG[c][sq]) for c in (0, 1))


def _piece_counts(b) -> tuple[tuple[int, int], int]:
    """(pieces of each side in its own fortress and gate, pieces on the board) for ``_Board.fg``/``total``."""
    fg = tuple(sum(1 for sq in FG_SQUARES[c] if b[sq] and b[sq] >> 3 == c) for c in (0, 1))
    return fg, sum(1 for sq in SQUARES if b[sq])


class _Board:
    """A mutable position with make/unmake; the engine behind every public method."""

    __slots__ = (
        "rules", "b", "side", "tem", "ep", "np", "ply", "urg", "fg", "total", "winner", "bare", "hist",
    )

    def __init__(self, rules: _Rules, board, side, tem, ep, noprogress, ply, urgent, winner, bare, hist, counts=None):
        self.rules = rules
        self.b = list(board)
        self.side = side
        self.tem = list(tem)
        self.ep = ep
        self.np = noprogress
        self.ply = ply
        self.urg = urgent
        self.winner = winner
        self.bare = bare
        self.hist = list(hist)
        b = self.b
        if counts is None:
            counts = _piece_counts(b)
        self.fg = list(counts[0])
        self.total = counts[1]

    def key(self):
        """FEN fields 1-4 (board with urgent marks, side, temdeks, ep): what repetition compares."""
        return (tuple(self.b), self.side, self.tem[0], self.tem[1], self.ep, self.urg)

    # ------------------------------------------------------------ helpers

    def available(self, c: int) -> tuple[int, ...]:
        """Promotion types side c may choose now (book §5.11, A11)."""
        b, pool = self.b, self.rules.pool
        counts = {Q: 0, R: 0, B: 0}
        for sq in SQUARES:
            p = b[sq]
            if p and p >> 3 == c and (p & 7) in counts:
                counts[p & 7] += 1
        return tuple(t for t in (Q, R, B) if counts[t] < pool[t])

    def drawn(self) -> str | None:
        """The draw reason of D1-D4 for the current position (whose key is hist[-1]), if any."""
        r = self.rules
        if r.repetition and self.hist and self.hist.count(self.hist[-1]) >= r.repetition:
            return "repetition"
        if r.no_progress and self.np >= r.no_progress:
            return "no-progress"
        if r.bare and self.total == 2 and self.bare >= r.bare:
            return "bare-biys"
        if r.max_plies and self.ply >= r.max_plies:
            return "max-plies"
        return None

    # ------------------------------------------------------------ captures

    def _jumps(self, s, t, caps, first, restricted, biy):
        """The jumps (captured square, landing squares) from s for a piece of type t of the side to move."""
        b, c = self.b, self.side
        res = []
        if t == K or t == P:
            if t == K:
                dirs = ALL8
            elif REL[c][s] == 14:
                dirs = SIDEWAYS  # an unpromoted shatra on its last rank (book §5.11)
            else:
                dirs = self.rules.pawn_jumps[c]
            step = STEP
            myfg = IN_FG[c]
            for d in dirs:
                v = step[s][d]
                if v < 0:
                    continue
                pv = b[v]
                if not pv or pv >> 3 == c or v in caps:
                    continue
                land = step[v][d]
                if land < 0 or b[land]:
                    continue
                if restricted and myfg[land] and not (biy and land == GATE[c]):
                    continue
                res.append((v, (land,)))
            if t == P and first and self.ep >= 0 and REL[c][s] == 8:
                res.extend(self._en_passant(s))
            return res
        myfg = IN_FG[c]
        for d in SLIDES[t]:
            ray = RAY[s][d]
            n = len(ray)
            i = 0
            while i < n and not b[ray[i]]:
                i += 1
            if i >= n:
                continue
            v = ray[i]
            pv = b[v]
            if pv >> 3 == c or v in caps:
                continue
            lands = []
            i += 1
            while i < n and not b[ray[i]]:
                land = ray[i]
                if not (restricted and myfg[land]):
                    lands.append(land)
                i += 1
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

    def captures(self):
        """Every capture series of the side to move: (moves, any compulsory capturer, optional capturers)."""
        b, c, rules = self.b, self.side, self.rules
        found = {}
        compulsory = False
        optional_squares = []
        for s in SQUARES:
            p = b[s]
            if not p or p >> 3 != c:
                continue
            t = p & 7
            restricted = self.tem[c] and not IN_FG[c][s]
            if not self._jumps(s, t, (), True, restricted, t == K):
                continue
            optional = t == K or (t == P and s == GATE[1 - c] and rules.settings.gate_shatra_optional_capture)
            if optional:
                optional_squares.append(s)
            else:
                compulsory = True
            self._series(s, p, optional, restricted, found)
        return list(found.values()), compulsory, optional_squares

    def _series(self, s0, p0, optional, restricted, found):
        """Depth-first search of the capture series of the piece on s0 (book §5.6-5.11)."""
        b, c, rules = self.b, self.side, self.rules
        st = rules.settings
        color = c << 3
        biy = (p0 & 7) == K
        rel = REL[c]
        jumps = self._jumps
        types_cache = []

        def types():
            if not types_cache:
                types_cache.append(self.available(c))
            return types_cache[0]

        def emit(land, t, caps, path):
            if t == P and not st.promote_mid_series and rel[land] == 14 and rel[s0] != 14 and types():
                for nt in types():
                    letter = LETTERS[nt].upper()
                    found.setdefault((s0, path[:-1] + ((land, letter),)),
                                     (s0, land, nt | color, caps, path[:-1] + ((land, letter),), 2))
                return
            found.setdefault((s0, path), (s0, land, t | color, caps, path, 2))

        def arrive(frm, land, t, caps, path, over):
            """The piece lands, promotes on reaching its last rank (A9), goes on unless the series is over."""
            if t == P and st.promote_mid_series and rel[land] == 14 and rel[frm] != 14 and types():
                for nt in types():
                    npath = path + ((land, LETTERS[nt].upper()),)
                    if over:
                        emit(land, nt, caps, npath)
                    else:
                        dfs(land, nt, caps, npath)
                return
            npath = path + ((land, ""),)
            if over:
                emit(land, t, caps, npath)
            else:
                dfs(land, t, caps, npath)

        def dfs(s, t, caps, path):
            js = jumps(s, t, caps, not caps, restricted, biy)
            if caps and (optional or not js):
                emit(s, t, caps, path)
            for v, lands in js:
                ncaps = caps + (v,)
                if (b[v] & 7) == K and st.biy_capture_ends_series:
                    for land in lands:
                        arrive(s, land, t, ncaps, path, True)
                    continue
                if len(lands) > 1 and not optional:
                    going_on = [land for land in lands if jumps(land, t, ncaps, False, restricted, biy)]
                    if going_on:
                        lands = going_on[:1] if rules.first_continuing else going_on
                for land in lands:
                    arrive(s, land, t, ncaps, path, False)

        b[s0] = 0  # the start square counts as empty during the series
        try:
            dfs(s0, p0 & 7, (), ())
        finally:
            b[s0] = p0

    # ------------------------------------------------------------ quiet moves

    def _quiet_piece(self, s, p, out, empties):
        """Quiet moves and drops of the piece p on s (book §5.3-5.5), appended to out."""
        b, c, rules = self.b, self.side, self.rules
        st = rules.settings
        t = p & 7
        tem = self.tem[c]
        own = IN_FG[c][s]
        intruder = IN_FG[1 - c][s]
        before = len(out)
        if own and tem:  # initial reserve
            out.extend([(s, land, p, (), "", 1) for land in empties(c)])
            if st.great_road and (t == Q or t == R) and FILE_OF[s] == 3:
                rel = REL[c]
                for land in RAY[s][FORWARD[c]]:
                    if b[land]:
                        break
                    if rel[land] >= 8:
                        out.append((s, land, p, (), "", 0))
            if not st.reserve_ordinary_moves:
                return
        elif own:  # secondary reserve
            if st.secondary_reserve_drops:
                out.extend([(s, land, p, (), "", 1) for land in empties(c)])
        elif intruder:
            if (t != P or st.intruder_shatra_drops) and (s != GATE[1 - c] or st.gate_intruders_drop):
                out.extend([(s, land, p, (), "", 1) for land in empties(1 - c)])
        drops = len(out) > before
        if drops and not rules.drops_distinct:
            seen = {m[1] for m in out[before:]}
            sink = []
        else:
            seen = ()
            sink = out
        self._ordinary(s, p, t, tem, sink)
        if sink is not out:
            out.extend(m for m in sink if m[1] not in seen or m[2] != p)

    def _ordinary(self, s, p, t, tem, out):
        b, c = self.b, self.side
        myfg = IN_FG[c]
        if t == K:
            allow_gate = self.rules.settings.biy_may_step_onto_gate
            for land in STEP[s]:
                if land < 0 or b[land]:
                    continue
                if not (tem and myfg[land] and not (allow_gate and land == GATE[c])):
                    out.append((s, land, p, (), "", 0))
        elif t == P:
            rules = self.rules
            rel = REL[c]
            rr = rel[s]
            for d in rules.pawn_steps[c][rr]:
                land = STEP[s][d]
                if land >= 0 and not b[land] and not (tem and myfg[land]):
                    self._pawn_arrival(s, land, p, rr, out)
            if rr in rules.double_ranks:
                mid = STEP[s][FORWARD[c]]
                if mid >= 0 and not b[mid]:
                    land = STEP[mid][FORWARD[c]]
                    if land >= 0 and not b[land]:
                        out.append((s, land, p, (), "", 0))
            if rules.settings.tower_squares and s in ENEMY_TOWERS[c]:
                for land in FORTRESS[1 - c]:
                    if not b[land]:
                        self._pawn_arrival(s, land, p, rr, out)
        else:
            for d in SLIDES[t]:
                for land in RAY[s][d]:
                    if b[land]:
                        break
                    if not (tem and myfg[land]):
                        out.append((s, land, p, (), "", 0))

    def _pawn_arrival(self, s, land, p, rr, out):
        c = self.side
        if REL[c][land] == 14 and rr != 14:
            types = self.available(c)
            if types:
                out.extend((s, land, nt | c << 3, (), LETTERS[nt].upper(), 0) for nt in types)
                return
        out.append((s, land, p, (), "", 0))

    def quiet(self, squares=None):
        b, c = self.b, self.side
        cache = {}
        drop_squares = self.rules.drop_squares

        def empties(side):
            if side not in cache:
                cache[side] = [sq for sq in drop_squares[side] if not b[sq]]
            return cache[side]

        out = []
        for s in SQUARES if squares is None else squares:
            p = b[s]
            if p and p >> 3 == c:
                self._quiet_piece(s, p, out, empties)
        return out

    def urgent_drops(self):
        urg = self.urg
        if not urg:
            return []
        b, c = self.b, self.side
        out = []
        empties = [sq for sq in self.rules.drop_squares[c] if not b[sq]]
        for s in FORTRESS[c] + (GATE[c],):
            if urg & BIT[s] and b[s] and b[s] >> 3 == c:
                out.extend((s, land, b[s], (), "", 1) for land in empties)
        return out

    def legal(self):
        """The legal move set of book §5.12, ignoring whether the game is over."""
        caps, compulsory, optional_squares = self.captures()
        if compulsory:
            moves = caps
        else:
            st = self.rules.settings
            urgent = self.urgent_drops()
            if caps:
                if urgent and st.urgent_drop_overrides_decline:
                    moves = caps + urgent
                elif st.decliner_must_move_itself:
                    moves = caps + self.quiet(optional_squares)
                else:
                    moves = caps + (urgent or self.quiet())
            else:
                moves = urgent or self.quiet()
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
        frm, to, piece, caps, path, kind = m
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
        frm, to, piece, caps, path, kind = m
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


def _label(m, rules: _Rules) -> str:
    frm, to, piece, caps, path, kind = m
    names = rules.names
    if kind == 2:
        jumps = ("x" + names[land] + ("=" + letter if letter else "") for land, letter in path)
        return names[frm] + "".join(jumps)
    sep = rules.drop_sep if kind == 1 else "-"
    return names[frm] + sep + names[to] + ("=" + path if path else "")


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


def _pieces_getter(squares):
    """board -> tuple of the pieces on ``squares`` (itemgetter alone gives a bare value for one square)."""
    if len(squares) == 1:
        (square,) = squares
        return lambda board: (board[square],)
    return itemgetter(*squares)


_RANK_PIECES = tuple(_pieces_getter(RANK_SQUARES[rank]) for rank in range(14, 0, -1))  # rank 14 first
_RANK_TEXT: dict[tuple[int, ...], str] = {}  # the pieces of one rank -> its FEN group (no urgent marks)


def _board_text(board, urgent) -> str:
    if not urgent:
        # ranks repeat from position to position, so each distinct rank is written once
        texts = _RANK_TEXT
        if len(texts) > 100_000:
            texts.clear()
        groups = []
        for pieces_of in _RANK_PIECES:
            pieces = pieces_of(board)
            text = texts.get(pieces)
            if text is None:
                text = texts[pieces] = _rank_text(pieces)
            groups.append(text)
        return "/".join(groups)
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


class ShatraPosition(Position):
    """An immutable Altai Shatra position; ``play`` returns a new one."""

    __slots__ = ("settings", "_rules", "_b", "_side", "_tem", "_ep", "_np", "_ply", "_urg", "_winner",
                 "_bare", "_history", "_captured", "_moves", "_outcome", "_text", "_counts")

    def __init__(self, settings, board, side, tem, ep, noprogress, ply, urgent, winner, bare, history=None,
                 captured=()):
        self.settings = settings
        self._rules = _rules(settings)
        self._b = tuple(board)
        self._side = side
        self._tem = tuple(tem)
        self._ep = ep
        self._np = noprogress
        self._ply = ply
        self._urg = urgent
        self._winner = winner
        self._bare = bare
        key = (self._b, side, self._tem[0], self._tem[1], ep, urgent)
        self._history = (history or ()) + (key,)
        self._captured = captured
        self._moves = None
        self._outcome = False
        self._text = None
        self._counts = None

    def _board(self) -> _Board:
        if self._counts is None:
            self._counts = _piece_counts(self._b)
        return _Board(self._rules, self._b, self._side, self._tem, self._ep, self._np, self._ply, self._urg,
                      self._winner, self._bare, self._history, self._counts)

    @property
    def turn(self) -> str:
        return WHITE if self._side == 0 else BLACK

    @property
    def ply(self) -> int:
        return self._ply

    @property
    def captured(self) -> tuple[str, ...]:
        return self._captured

    def _legal(self) -> dict:
        if self._moves is None:
            rules = self._rules
            labels = rules.labels
            if len(labels) > 200_000:
                labels.clear()
            moves = {}
            for m in self._board().legal():
                label = labels.get(m)
                if label is None:
                    label = labels[m] = _label(m, rules)
                moves[label] = m
            self._moves = moves
        return self._moves

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
        reason = self._board().drawn()
        return Outcome(NONE, reason) if reason else None

    def legal_moves(self) -> list[str]:
        if self.outcome() is not None:
            return []
        return sorted(self._legal())

    def _legal_actions(self) -> dict:
        return self._legal() if self.outcome() is None else {}

    def _why_illegal(self, wanted: str) -> str:
        """A short reason for an action that is not legal, where one is cheap to find."""
        names = self._rules.square_of
        parts = wanted.replace("*", "-").replace("x", "-").split("=")[0].split("-")
        if len(parts) < 2 or any(part not in names for part in parts):
            return "malformed: expected FROM-TO, FROM-TO=Q|R|B or a series FROMxTOxTO..."
        piece = self._b[names[parts[0]]]
        if not piece or piece >> 3 != self._side:
            return f"no {self.turn} piece on {parts[0]}"
        legal = list(self._legal())
        if any(label.lower().startswith(wanted + "x") for label in legal):
            return "the series must go on"
        if all("x" in label for label in legal):
            return "a capture is compulsory"
        if all(not label.lower().startswith(parts[0] + "-") and not label.lower().startswith(parts[0] + "x")
               for label in legal):
            return f"the piece on {parts[0]} has no legal move here"
        return f"not a legal move of the piece on {parts[0]}"

    def play(self, action: str) -> ShatraPosition:
        label = self.canonical_action(action)
        m = self._legal()[label]
        board = self._board()
        board.make(m)
        names = self._rules.names
        return ShatraPosition(
            self.settings, board.b, board.side, board.tem, board.ep, board.np, board.ply, board.urg,
            board.winner, board.bare, self._history, tuple(names[v] for v in m[3]),
        )

    def text(self) -> str:
        if self._text is None:
            tem = ("T" if self._tem[0] else "") + ("t" if self._tem[1] else "") or "-"
            ep = self._rules.names[self._ep] if self._ep >= 0 else "-"
            moveno = self._ply // 2 + 1
            board = _board_text(self._b, self._urg)
            self._text = f"{board} {'wb'[self._side]} {tem} {ep} {self._np} {moveno}"
        return self._text

    def _perft(self, depth: int) -> int:
        return self._board().perft(depth)


def _parse(text: str, settings: Settings) -> ShatraPosition:
    rules = _rules(settings)
    board, side, tem, ep, noprogress, ply, urgent, winner = _read_fen(text, rules)
    # README: from a FEN, the bare-biys count (D3) is taken from the no-progress field.
    return ShatraPosition(settings, board, side, tem, ep, noprogress, ply, urgent, winner, noprogress)


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
