"""The board of Altai Shatra and every table precomputed on it."""

from __future__ import annotations

from functools import cache
from operator import itemgetter

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



FG_SQUARES = tuple(tuple(sq for sq in SQUARES if IN_FG[c][sq]) for c in (0, 1))


EMPTY_CELLS = bytes(p == 0 for p in range(256))  # translate tables
OWN_PIECES = tuple(bytes(p != 0 and p >> 3 == c for p in range(256)) for c in (0, 1))  # translate tables
ENEMY_PIECES = (OWN_PIECES[1], OWN_PIECES[0])
# Per side to move, a piece's role in the capture pre-test: 1 own biy or shatra, 2 own slider, 4 enemy piece.
ROLES = tuple(
    bytes(0 if not p else 4 if p >> 3 != c else 1 if p & 7 in (K, P) else 2 for p in range(256)) for c in (0, 1)
)


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
