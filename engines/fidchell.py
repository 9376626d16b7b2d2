"""Fidchell (Nigel Suckling), both rule sets: ``fidchell-1`` (Rules One) and ``fidchell-2`` (Rules 2)."""

from __future__ import annotations

import math
import random
import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache, partial
from itertools import chain, combinations, compress
from operator import itemgetter

from .core import (
    BLACK,
    NONE,
    WHITE,
    BadPosition,
    BadSettings,
    BoardPoint,
    BoundedCache,
    Game,
    Outcome,
    Position,
    Termination,
)

EMPTY, W_STONE, B_STONE, KING = 0, 1, 2, 3
SIDE_NAME = {W_STONE: WHITE, B_STONE: BLACK}
SIDE_LETTER = {W_STONE: "W", B_STONE: "B"}
STONES_PER_PLAYER = 27
MIN_PATH_STRENGTH = 7  # "less than seven stones (the minimum needed to win)"

# Action codes: kind in bits 16+, from-node in bits 8-15, to-node in bits 0-7.
PLACE, MOVE, CHALLENGE_MOVE, REMOVE = 0, 1 << 16, 2 << 16, 3 << 16
KIND_MASK = 3 << 16
NO_NODE = 255
# F2 challenge codes besides 0 (none) and 1..window (pending): White owes the removal (CH=R), and the window has run
# out without a White capture, so Black has won (CH=0, the project's extension of §8: a line must show that end).
REMOVE_OWED, UPHELD = -1, -2
# bytes.translate tables turning a board's cells into 1 where the cell is empty / holds a side's stone:
EMPTY_CELLS = bytes([1]) + bytes(255)
STONES_OF = {W_STONE: bytes([0, 1]) + bytes(254), B_STONE: bytes([0, 0, 1]) + bytes(253)}

R1_RING_SIZES = "4,8,16,16,16,24,24"
PLACEHOLDER_OPENING_LAYOUT = (
    "r2s0,r2s2,r2s4,r2s6,r5s0,r5s4,r5s8,r5s12/r3s2,r3s6,r3s10,r3s14,r6s3,r6s9,r6s15,r6s21"
)


@dataclass(frozen=True)
class Settings:
    """The decisions of docs/rules/fidchell.md §7 (one type for both variants; defaults as written).

    A setting that only concerns one variant is ignored by the other. Decisions whose
    alternative makes no difference on this board, or that the book rejects outright,
    accept only the book's value (BadSettings names why).
    """

    ring_sizes: str = R1_RING_SIZES  # D1: points per ring, ring 1 outwards (reconstruction R1)
    circles_are_lines: bool = True  # D2: slides and captures also run along the rings
    slide_to_obstruction: bool = False  # D3: True = a slide must run on until blocked
    ring_slide_max_steps: int = 0  # D4: 0 = up to n-1 steps (never to or past the start)
    # D5: "no doubling back" holds within one move only. False: a player may not move a stone
    # straight back along their own previous movement.
    may_return_on_later_turn: bool = True
    # D6: each player moves once their own hand is empty. False: the global switch, a player
    # with an empty hand waits (is skipped) while the other still places.
    movement_when_own_hand_empty: bool = True
    may_move_with_stones_in_hand: bool = False  # D7
    extra_turn_per_capturing_action: bool = True  # D8: one extra action per capturing one (False: per stone)
    placement_capture_gives_extra_turn: bool = True  # D9
    waking_movement_uses_king: bool = True  # D10 (F1): the movement that wakes the King may use it
    king_wake_captures_existing: bool = False  # D11 (F1): waking the King takes existing sandwiches
    black_first_movement_uses_king: bool = True  # D12 (F2): Black's first movement may use the King
    king_counts_in_path: bool = False  # D13: makes no difference (every path holds a ring-1 stone)
    fidchell2_hand: int = 19  # D14 (F2): stones in hand after the opening layout
    white_strength_counts_hand: bool = True  # D15 (F2): strength = board + hand
    cut_off_adjudicated: bool = False  # D16 (F2): "cutting off the centre" is settled by the challenge
    challenge_window: int = 5  # D17 (F2): White actions in a challenge window
    challenge_removal: int = 2  # D18 (F2): Black stones White removes after defeating a challenge
    black_path_wins: bool = False  # D19 (F2): a Black path has no effect
    no_legal_move_loses: bool = True  # D20: the side with no legal action loses (False: it passes)
    repetition_count: int = 3  # D21: n-fold repetition is a draw (0 = off)
    no_capture_limit: int = 150  # D21: capture-free stage-2 actions before a draw (0 = off)
    max_actions: int = 1000  # D21: hard cap on actions in a game
    first_player: str = WHITE.value  # D22 (F1): who acts first
    captures_on_all_lines: bool = True  # D23: every line through the landing node, all at once
    opening_layout: str = PLACEHOLDER_OPENING_LAYOUT  # D24 (F2): "white nodes/black nodes" (placeholder)
    diameter_is_one_line: bool = False  # D25: makes no difference (c is always occupied)
    dead_position_draw: bool = False  # §6.5 (F1): both strengths below 7 is a draw

    def __post_init__(self) -> None:
        _ring_sizes(self.ring_sizes)  # raises BadSettings
        fixed = {
            "king_counts_in_path": (False, "it makes no difference: every path holds a ring-1 stone"),
            "cut_off_adjudicated": (False, "a cut-off cannot be adjudicated; the challenge settles it"),
            "captures_on_all_lines": (True, "no other reading of simultaneous captures is defined"),
            "diameter_is_one_line": (False, "it makes no difference: c is always occupied"),
        }
        for name, (value, why) in fixed.items():
            if getattr(self, name) != value:
                raise BadSettings(f"setting {name} must be {value}: {why}")
        if self.ring_slide_max_steps < 0:
            raise BadSettings("setting ring_slide_max_steps must be 0 (no limit) or positive")
        if not 1 <= self.fidchell2_hand <= STONES_PER_PLAYER:
            raise BadSettings(f"setting fidchell2_hand must be 1..{STONES_PER_PLAYER}")
        if not 1 <= self.challenge_window <= 9:
            raise BadSettings("setting challenge_window must be 1..9 (one digit in the CH field)")
        if self.challenge_removal not in (1, 2):
            raise BadSettings("setting challenge_removal must be 1 or 2")
        if self.repetition_count < 0 or self.repetition_count == 1:
            raise BadSettings("setting repetition_count must be 0 (off) or at least 2")
        if self.no_capture_limit < 0:
            raise BadSettings("setting no_capture_limit must be 0 (off) or positive")
        if self.max_actions < 1:
            raise BadSettings("setting max_actions must be positive")
        if self.first_player not in (WHITE, BLACK):
            raise BadSettings(f"setting first_player must be white or black, not {self.first_player!r}")


def _ring_sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise BadSettings(f"setting ring_sizes must be comma-separated integers, not {text!r}") from None
    if len(sizes) < 2 or any(n < 3 for n in sizes):
        raise BadSettings(f"setting ring_sizes needs at least 2 rings of at least 3 points: {text!r}")
    if sum(sizes) > 250:
        raise BadSettings(f"setting ring_sizes: at most 250 points in all, got {sum(sizes)}")
    return sizes


# ---------------------------------------------------------------------------------------------
# Geometry (§2.2, §2.3): everything derived from the ring sizes.


class Geometry:
    """Precomputed tables for one board: names, lines, slide rays, capture pairs, adjacency."""

    def __init__(self, sizes: tuple[int, ...], circles_are_lines: bool, ring_slide_max_steps: int):
        self.sizes = sizes
        self.rings = len(sizes)
        unit = math.lcm(*sizes)  # the common angular unit (48 for R1)
        first = [sum(sizes[:r]) for r in range(len(sizes))]
        self.nr = nr = sum(sizes)
        self.centre = centre = nr
        self.names = [f"r{r + 1}s{k}" for r, n in enumerate(sizes) for k in range(n)] + ["c"]
        self.index = {name: i for i, name in enumerate(self.names)}
        self.ring_of = [r + 1 for r, n in enumerate(sizes) for _ in range(n)] + [0]

        def at(r: int, angle: int) -> int | None:  # r is 0-based
            step = unit // sizes[r]
            return first[r] + angle // step if angle % step == 0 else None

        cw, ccw, out, inward = [], [], [], []
        for r, n in enumerate(sizes):
            for k in range(n):
                angle = k * (unit // n)
                cw.append(first[r] + (k + 1) % n)
                ccw.append(first[r] + (k - 1) % n)
                out.append(at(r + 1, angle) if r + 1 < len(sizes) else None)
                inward.append(centre if r == 0 else at(r - 1, angle))
        cw.append(None), ccw.append(None), out.append(None), inward.append(None)
        self.radial_steps = (out, inward)

        # Path adjacency (§3.5): ring and radial edges between ring nodes.
        self.adjacent = [
            tuple(q for q in {cw[p], ccw[p], out[p], inward[p]} if q is not None and q != centre)
            for p in range(nr)
        ]

        line_steps = (cw, ccw, out, inward) if circles_are_lines else (out, inward)
        # Capture pairs: (q, r) = next and next-but-one node along one direction of a line.
        self.capture_pairs = []
        for p in range(nr):
            pairs = []
            for step in line_steps:
                q = step[p]
                if q is None or q == centre:
                    continue
                r = step[q]
                if r is not None:
                    pairs.append((q, r))
            self.capture_pairs.append(tuple(pairs))

        # Slide rays: nodes in order along each direction, never entering c or the start.
        self.ring_rays = []
        self.radial_rays = []
        for p in range(nr):
            n = sizes[self.ring_of[p] - 1]
            limit = n - 1 if ring_slide_max_steps == 0 else min(n - 1, ring_slide_max_steps)
            rays = []
            if circles_are_lines:
                for step in (cw, ccw):
                    ray, q = [], p
                    for _ in range(limit):
                        q = step[q]
                        ray.append(q)
                    rays.append(tuple(ray))
            self.ring_rays.append(tuple(rays))
            radial = []
            for step in (out, inward):
                ray, q = [], step[p]
                while q is not None and q != centre:
                    ray.append(q)
                    q = step[q]
                if ray:
                    radial.append(tuple(ray))
            self.radial_rays.append(tuple(radial))
        # The fast generator relies on: a fully open cw ray of n-1 steps makes ccw redundant.
        self.full_ring_rays = circles_are_lines and ring_slide_max_steps == 0
        self.inner_nodes = tuple(range(sizes[0]))
        self.inner_end = sizes[0]  # ring 1 is b[:sizes[0]], the outer ring b[outer_first:nr]
        self.outer_first = first[-1]

        self.action_texts = _ActionTexts(self.names)
        self.stone_lists = BoundedCache(4096)  # filled by stone_list
        # Tables of the fast generators, built here: an attribute added later would slow every lookup
        # of the others (the instance dict stops sharing its keys), and make reads several per call.
        self.sorted_placements = self._sorted_placements()
        self.slide_codes = self._slide_codes() if self.full_ring_rays else []
        self.slide_texts = self._slide_texts()
        self.challenge_texts = self._challenge_texts()
        rng = random.Random(0xF1DC)
        self.zobrist = [[0] * (nr + 1), [rng.getrandbits(64) for _ in range(nr + 1)],
                        [rng.getrandbits(64) for _ in range(nr + 1)]]

    def node(self, name: str) -> int | None:
        p = self.index.get(name)
        return None if p is None or p == self.centre else p

    def stone_list(self, cells: bytes, side: int) -> str:
        """The W or B field of the state line: the side's nodes, ``cells`` being the board as bytes."""
        stones = cells.translate(STONES_OF[side])
        text = self.stone_lists.get(stones)
        if text is None:  # one side's stones stay as they were while the other side acts
            text = self.stone_lists.keep(stones, ",".join(compress(self.names, stones)) or "-")
        return text

    def _sorted_placements(self) -> tuple[itemgetter, tuple[str, ...]]:
        """The placements' texts in sorted order, and a getter picking the nodes' cells in that order."""
        texts = sorted((self.action_texts[PLACE | p], p) for p in range(self.nr))
        return itemgetter(*(p for _, p in texts)), tuple(text for text, _ in texts)

    # The slide tables (full ring rays only): per ring node, its cw ray, its ccw ray, its two radial
    # rays (either may be empty) and a row naming the slide to each node it reaches, as a code or a text.

    def _slide_codes(self) -> list[tuple]:
        table = []
        for p in range(self.nr):
            radial_rays = self.radial_rays[p] + ((), ())
            row = [MOVE | p << 8 | t for t in range(self.nr)]
            table.append((*self.ring_rays[p], radial_rays[0], radial_rays[1], row))
        return table

    def _slide_texts(self) -> list[tuple]:
        table = []
        for *rays, codes in self.slide_codes:
            row = [None] * self.nr
            for t in chain(*rays):
                row[t] = self.action_texts[codes[t]]
            table.append((*rays, row))
        return table

    def _challenge_texts(self) -> dict[str, str]:
        """F2: each slide's text -> the text of the same slide as a challenge."""
        texts = self.action_texts
        return {text: texts[texts.codes[text] ^ MOVE ^ CHALLENGE_MOVE]
                for *_, row in self.slide_texts for text in row if text is not None}


class _ActionTexts(dict):
    """Action code -> canonical text, each made on first use; ``codes`` maps the texts made back."""

    def __init__(self, names: list[str]):
        super().__init__()
        self.names = names
        self.codes: dict[str, int] = {}

    def __missing__(self, a: int) -> str:
        text = self[a] = _action_text(a, self.names)
        self.codes[text] = a
        return text


def geometry(settings: Settings) -> Geometry:
    """The board these settings play on: its rings (``sizes``), point ``names``, and the lines between points."""
    return _geometry(settings.ring_sizes, settings.circles_are_lines, settings.ring_slide_max_steps)


def _board_points(settings: Settings) -> tuple[BoardPoint, ...]:
    geo = geometry(settings)
    first = [sum(geo.sizes[:r]) for r in range(geo.rings)] + [geo.centre]
    return tuple(
        BoardPoint(name, (ring, p - first[ring - 1]) if ring else (0, 0), "" if ring else "centre")
        for p, (name, ring) in enumerate(zip(geo.names, geo.ring_of))
    )


@lru_cache(maxsize=16)
def _geometry(ring_sizes: str, circles_are_lines: bool, ring_slide_max_steps: int) -> Geometry:
    return Geometry(_ring_sizes(ring_sizes), circles_are_lines, ring_slide_max_steps)


# ---------------------------------------------------------------------------------------------
# The mutable core: make/unmake on a list board.


class _Board:
    """One game state, changed in place by ``make`` and restored by ``unmake``."""

    __slots__ = (
        "variant", "settings", "geometry", "board", "hand", "count", "turn", "king", "challenge", "ply", "capfree",
        "stone_hash",
        "end", "reps", "path_sides", "strength_rule", "owed", "forbid",
    )

    def __init__(self, variant, settings, geometry, board, hands, turn, king, challenge):
        """A state with no history: the initial position or a parsed one."""
        self.variant = variant
        self.settings = settings
        self.geometry = geometry
        self.board = list(board)
        self.hand = [0, hands[0], hands[1]]
        self.count = [0, self.board.count(W_STONE), self.board.count(B_STONE)]
        self.turn = turn
        self.king = king  # F1: 0 dead, 1 live; F2: 0 white, 1 both
        self.challenge = challenge  # F2 challenge: 0 none, 1..window pending, REMOVE_OWED, UPHELD
        self.ply = 0
        self.capfree = 0
        zw, zb = geometry.zobrist[W_STONE], geometry.zobrist[B_STONE]
        z = 0
        for p, v in enumerate(self.board):
            if v == W_STONE:
                z ^= zw[p]
            elif v == B_STONE:
                z ^= zb[p]
        self.stone_hash = z  # Zobrist hash of the stones, for the repetition key
        self.end = None  # (winner code 0/1/2, reason) for wins decided by an action
        if variant == 1:
            self.path_sides = (W_STONE, B_STONE)
        else:
            self.path_sides = (W_STONE, B_STONE) if settings.black_path_wins else (W_STONE,)
        self.strength_rule = variant == 2
        # History the state line cannot hold, used only under non-default settings:
        self.owed = 0  # D8 per stone: further actions owed to the side to act after its next one (0 by default)
        self.forbid = [-1, -1, -1]  # D5: the move code each side may not play next
        self.reps = {self.key(): 1}  # repetition key -> times seen since the last irreversible action

    def copy(self) -> _Board:
        """A copy to make actions on; it shares the reps dict, which play replaces and perft copies."""
        new = _Board.__new__(_Board)
        new.variant = self.variant
        new.settings = self.settings
        new.geometry = self.geometry
        new.board = self.board[:]
        new.hand = self.hand[:]
        new.count = self.count[:]
        new.turn = self.turn
        new.king = self.king
        new.challenge = self.challenge
        new.ply = self.ply
        new.capfree = self.capfree
        new.stone_hash = self.stone_hash
        new.end = self.end
        new.reps = self.reps
        new.path_sides = self.path_sides
        new.strength_rule = self.strength_rule
        new.owed = self.owed
        new.forbid = self.forbid[:]
        return new

    def key(self):
        return (self.stone_hash, self.turn, self.hand[1], self.hand[2], self.king, self.challenge, self.owed,
                self.forbid[1], self.forbid[2])

    # -- generation ---------------------------------------------------------------------------

    def gen(self) -> list[int]:
        s = self.turn
        g = self.geometry
        if self.challenge == REMOVE_OWED:
            return self._removals()
        if self.hand[s] > 0:
            acts = list(compress(range(g.nr), bytes(self.board).translate(EMPTY_CELLS)))
            if not self.settings.may_move_with_stones_in_hand:
                return acts
        else:
            acts = []
        if g.full_ring_rays and not self.settings.slide_to_obstruction:
            self.slides(acts.append, g.slide_codes, bytes(self.board))
        else:
            self._slides_general(acts)
        forbidden = self.forbid[s]
        if forbidden >= 0 and forbidden in acts:
            acts.remove(forbidden)
        if self.challenge_open():
            acts += [a ^ MOVE ^ CHALLENGE_MOVE for a in acts if a & KIND_MASK == MOVE]
        return acts

    def texts(self, cells: bytes) -> list[str]:
        """The texts of ``gen``'s actions (``cells`` is ``bytes(self.board)``); common cases make no codes."""
        s = self.turn
        g = self.geometry
        if self.challenge != REMOVE_OWED and self.forbid[s] < 0:
            if self.hand[s] > 0 and not self.settings.may_move_with_stones_in_hand:
                cells_in_order, texts = g.sorted_placements
                return list(compress(texts, cells_in_order(cells.translate(EMPTY_CELLS))))
            if self.hand[s] == 0 and g.full_ring_rays and not self.settings.slide_to_obstruction:
                texts = []
                self.slides(texts.append, g.slide_texts, cells)
                if self.challenge_open():
                    texts += list(map(g.challenge_texts.__getitem__, texts))
                return texts
        return list(map(g.action_texts.__getitem__, self.gen()))

    def challenge_open(self) -> bool:
        """F2: may Black's slides here be challenges too?"""
        return self.variant == 2 and self.turn == B_STONE and self.challenge == 0 and self.hand[1] == self.hand[2] == 0

    def slides(self, append, table: list[tuple], cells: bytes) -> None:
        """Every slide of the side to act under the default D3/D4, named as ``table`` names them."""
        b = self.board
        for f in compress(range(self.geometry.nr), cells.translate(STONES_OF[self.turn])):
            cw_ray, ccw_ray, radial_ray, other_radial_ray, row = table[f]
            for t in cw_ray:
                if b[t]:
                    for t in ccw_ray:  # blocked clockwise: only then does the ccw ray reach new nodes
                        if b[t]:
                            break
                        append(row[t])
                    break
                append(row[t])
            for t in radial_ray:
                if b[t]:
                    break
                append(row[t])
            for t in other_radial_ray:
                if b[t]:
                    break
                append(row[t])

    def _slides_general(self, acts: list[int]) -> None:
        """Slides under non-default D3/D4 settings: destinations deduplicated per stone."""
        b, g, s = self.board, self.geometry, self.turn
        to_obstruction = self.settings.slide_to_obstruction
        for f in range(g.nr):
            if b[f] != s:
                continue
            destinations = set()
            for ray in g.ring_rays[f] + g.radial_rays[f]:
                last = None
                for t in ray:
                    if b[t]:
                        break
                    if to_obstruction:
                        last = t
                    else:
                        destinations.add(t)
                if last is not None:
                    destinations.add(last)
            acts.extend(MOVE | f << 8 | t for t in sorted(destinations))

    def _removals(self) -> list[int]:
        blacks = [p for p in range(self.geometry.nr) if self.board[p] == B_STONE]
        if self.settings.challenge_removal == 1 or len(blacks) == 1:
            return [REMOVE | p << 8 | NO_NODE for p in blacks]
        return [REMOVE | p << 8 | q for p, q in combinations(blacks, 2)]

    # -- make / unmake ------------------------------------------------------------------------

    def make(self, a: int):
        """Play action ``a`` (assumed legal); returns what ``unmake`` needs."""
        b = self.board
        s = self.turn
        e = 3 - s
        g = self.geometry
        st = self.settings
        hand = self.hand
        count = self.count
        undo = (
            a, s, self.king, self.challenge, self.capfree, self.ply, self.stone_hash, self.end, self.owed,
            self.forbid[s],
        )
        ch_before = self.challenge
        stage2 = hand[1] == 0 and hand[2] == 0
        kind = a & KIND_MASK
        t = a & 255
        zs = g.zobrist[s]
        ze = g.zobrist[e]
        z = self.stone_hash
        caps = []
        if kind == REMOVE:
            for q in ((a >> 8) & 255, t):
                if q != NO_NODE:
                    b[q] = EMPTY
                    z ^= ze[q]
                    caps.append(q)
            count[e] -= len(caps)
            self.challenge = 0
            self.turn = s  # White now takes the extra turn its capture earned (and took off owed)
            self.stone_hash = z
            self.capfree = 0
            self.ply += 1
            return undo + (caps,)
        if kind == PLACE:
            hand[s] -= 1
            count[s] += 1
            z ^= zs[t]
        else:
            f = (a >> 8) & 255
            b[f] = EMPTY
            z ^= zs[f] ^ zs[t]
        b[t] = s
        king = self.king
        wakes = kind != PLACE and not king and (self.variant == 1 or s == B_STONE)
        if wakes:
            if self.variant == 1 and st.waking_movement_uses_king:
                king = 1
            elif self.variant == 2 and st.black_first_movement_uses_king:
                king = 1
        friendly = king == 1 or (self.variant == 2 and s == W_STONE)
        for q, r in g.capture_pairs[t]:
            if b[q] == e:
                br = b[r]
                if br == s or (br == KING and friendly):
                    caps.append(q)
        if wakes:
            king = 1
            if self.variant == 1 and st.king_wake_captures_existing:
                out = g.radial_steps[0]
                for q in g.inner_nodes:
                    if b[q] == e and out[q] is not None and b[out[q]] == s and q not in caps:
                        caps.append(q)
        self.king = king
        for q in caps:
            b[q] = EMPTY
            z ^= ze[q]
        count[e] -= len(caps)
        self.stone_hash = z
        end = None
        if (
            s in self.path_sides
            and count[s] >= g.rings
            and s in b[: g.inner_end]
            and s in b[g.outer_first : g.nr]
            and self._path_through(t, s)
        ):
            end = (s, Termination.PATH)
        elif caps and e == W_STONE and self.strength_rule and self.white_strength() < MIN_PATH_STRENGTH:
            end = (B_STONE, Termination.STRENGTH)
        if self.variant == 2 and end is None:
            if kind == CHALLENGE_MOVE:
                self.challenge = st.challenge_window
            elif s == W_STONE and ch_before > 0:
                if caps:
                    self.challenge = REMOVE_OWED if count[B_STONE] else 0
                else:
                    self.challenge = ch_before - 1
                    if self.challenge == 0:
                        self.challenge = UPHELD  # written CH=0, so that the line read back is over too
                        end = (B_STONE, Termination.CHALLENGE)
        self.end = end
        owed = self.owed
        if caps and (kind != PLACE or st.placement_capture_gives_extra_turn):
            owed += 1 if st.extra_turn_per_capturing_action else len(caps)
        if owed:
            # One extra turn is counted off now, even when a removal comes first (CH=R: the removal hands White
            # that turn), so that under the default settings owed is 0 wherever a state line is written.
            nxt = s
            owed -= 1
        else:
            nxt = e
        if not st.movement_when_own_hand_empty and hand[nxt] == 0 and hand[3 - nxt] > 0:
            nxt, owed = 3 - nxt, 0
        self.turn = nxt
        self.owed = owed
        if not st.may_return_on_later_turn:
            self.forbid[s] = (MOVE | t << 8 | (a >> 8) & 255) if kind != PLACE else -1
        if not stage2 or caps:
            self.capfree = 0
        elif ch_before == 0 and self.challenge == 0:
            self.capfree += 1
        self.ply += 1
        if end is None and not st.no_legal_move_loses:
            self._pass_if_stuck()
        return undo + (caps,)

    def _pass_if_stuck(self) -> None:
        """D20 = pass: a side with no legal action passes; if neither side can act, a draw."""
        if self.gen():
            return
        if self.turn == W_STONE and self.challenge > 0:
            self.end = (B_STONE, Termination.NO_LEGAL_MOVE)  # White cannot answer the challenge (README)
            return
        self.turn = 3 - self.turn
        self.owed = 0
        if not self.gen():
            self.end = (0, Termination.NO_LEGAL_MOVE)

    def unmake(self, undo) -> None:
        a, s, self.king, self.challenge, self.capfree, self.ply, self.stone_hash, self.end, self.owed, forbid, caps = (
            undo
        )
        self.forbid[s] = forbid
        b = self.board
        e = 3 - s
        self.turn = s
        for q in caps:
            b[q] = e
        self.count[e] += len(caps)
        kind = a & KIND_MASK
        if kind == REMOVE:
            return
        t = a & 255
        b[t] = EMPTY
        if kind == PLACE:
            self.hand[s] += 1
            self.count[s] -= 1
        else:
            b[(a >> 8) & 255] = s

    # -- rules helpers ------------------------------------------------------------------------

    def _path_through(self, start: int, s: int) -> bool:
        """Does the group of ``s`` stones holding ``start`` touch ring 1 and the outer ring?"""
        b = self.board
        adjacent = self.geometry.adjacent
        ring_of = self.geometry.ring_of
        outer = self.geometry.rings
        seen = {start}
        stack = [start]
        inner_found = outer_found = False
        while stack:
            p = stack.pop()
            ring = ring_of[p]
            if ring == 1:
                inner_found = True
            elif ring == outer:
                outer_found = True
            if inner_found and outer_found:
                return True
            for q in adjacent[p]:
                if b[q] == s and q not in seen:
                    seen.add(q)
                    stack.append(q)
        return False

    def has_path(self, s: int) -> bool:
        b = self.board
        return any(b[p] == s and self._path_through(p, s) for p in self.geometry.inner_nodes)

    def white_strength(self) -> int:
        hand = self.hand[W_STONE] if self.settings.white_strength_counts_hand else 0
        return self.count[W_STONE] + hand

    def draw_reason(self) -> Termination | None:
        """The history-based draws of §6, in the book's order (repetition first)."""
        st = self.settings
        if st.repetition_count and self.reps.get(self.key(), 0) >= st.repetition_count:
            return Termination.REPETITION
        if st.no_capture_limit and self.capfree >= st.no_capture_limit:
            return Termination.NO_CAPTURE_LIMIT
        if self.ply >= st.max_actions:
            return Termination.MAX_ACTIONS
        if (
            self.variant == 1
            and st.dead_position_draw
            and all(self.count[side] + self.hand[side] < MIN_PATH_STRENGTH for side in (W_STONE, B_STONE))
        ):
            return Termination.DEAD_POSITION
        return None

    def perft(self, depth: int) -> int:
        """Leaves ``depth`` actions below this (ongoing) state; every leaf made and unmade."""
        make, unmake = self.make, self.unmake
        actions = self.gen()
        if depth == 1:
            for a in actions:
                unmake(make(a))
            return len(actions)
        total = 0
        reps = self.reps
        track = self.settings.repetition_count > 0
        for a in actions:
            undo = make(a)
            if track:
                key = self.key()
                reps[key] = reps.get(key, 0) + 1
            if self.end is None and self.draw_reason() is None:
                total += self.perft(depth - 1)
            if track:
                reps[key] -= 1
            unmake(undo)
        return total


# ---------------------------------------------------------------------------------------------
# Positions: immutable snapshots in the book's notation (§8).

KING_WORDS = {1: ("dead", "live"), 2: ("white", "both")}
VARIANT_TAG = {1: "F1", 2: "F2"}
WINNER_NAME = {W_STONE: WHITE, B_STONE: BLACK, 0: NONE}


class FidchellPosition(Position):
    """A Fidchell position; ``play`` returns a new one, this one never changes."""

    __slots__ = (
        "game", "settings", "_state", "_cells", "_captured", "_end", "_moves", "_legal", "_text", "_placed",
    )

    def __init__(self, state: _Board, captured: tuple[str, ...] = (), end: Outcome | None = None):
        self.game = FIDCHELL_1 if state.variant == 1 else FIDCHELL_2
        self.settings = state.settings
        self._state = state  # never changed: play and perft work on copies
        self._cells = bytes(state.board)  # the board as bytes, for bytes.translate
        self._captured = captured
        self._end = end
        self._moves = None  # the legal actions' texts, sorted, once asked for
        self._legal = None  # those texts -> action codes, once asked for
        self._text = None
        self._placed = None  # after a placement: (the placements before it, the one made)

    # -- the Position interface ---------------------------------------------------------------

    @property
    def turn(self) -> str:
        return SIDE_NAME[self._state.turn]

    @property
    def ply(self) -> int:
        return self._state.ply

    @property
    def captured(self) -> tuple[str, ...]:
        return self._captured

    @property
    def phase(self) -> str:
        state = self._state
        if state.challenge == REMOVE_OWED:
            return "remove"
        return "place" if state.hand[state.turn] > 0 else "move"

    @property
    def hands(self) -> tuple[int, int]:
        """Stones in hand: (white, black)."""
        return self._state.hand[W_STONE], self._state.hand[B_STONE]

    @property
    def king_state(self) -> str:
        return KING_WORDS[self._state.variant][self._state.king]

    @property
    def challenge(self) -> str:
        return _ch_text(self._state.challenge)

    def pieces(self) -> dict[str, str]:
        found = {"c": "nk"}  # the King never leaves the centre
        for side in (WHITE, BLACK):
            found.update(dict.fromkeys(self.stones(side), side[0] + "s"))
        return found

    def stones(self, side: str) -> tuple[str, ...]:
        code = W_STONE if side == WHITE else B_STONE
        return tuple(compress(self._state.geometry.names, self._cells.translate(STONES_OF[code])))

    def _sorted_moves(self) -> list[str]:
        if self._moves is None:
            state = self._state
            if self._end is not None or state.draw_reason() is not None:
                self._moves = []
            elif self._placed is not None and state.hand[state.turn] > 0:
                self._moves = self._placements_left()
            else:
                self._moves = state.texts(self._cells)
                self._moves.sort()
        return self._moves

    def _placements_left(self) -> list[str]:
        """The placements after a placement: those before it less the one made, plus any a capture freed."""
        before, placed = self._placed
        moves = before.copy()
        del moves[bisect_left(moves, placed)]
        if self._captured:
            moves += ["@" + node for node in self._captured]
            moves.sort()
        return moves

    def legal_moves(self) -> list[str]:
        return self._sorted_moves().copy()

    def outcome(self) -> Outcome | None:
        if self._end is not None:
            return self._end
        if self._sorted_moves():
            return None
        state = self._state
        draw = state.draw_reason()
        if draw is not None and state.gen():  # §6 order: having no legal action comes first
            return Outcome(draw, NONE)
        if not self.settings.no_legal_move_loses:
            return Outcome(Termination.NO_LEGAL_MOVE, NONE)  # D20 = pass: only reachable when both are stuck
        return Outcome(Termination.NO_LEGAL_MOVE, SIDE_NAME[3 - state.turn])

    def _legal_actions(self) -> dict[str, int]:
        if self._legal is None:
            codes = self._state.geometry.action_texts.codes
            self._legal = {text: codes[text] for text in self._sorted_moves()}
        return self._legal

    def play(self, action: str) -> FidchellPosition:
        state = self._state
        texts = state.geometry.action_texts
        moves = self._sorted_moves()
        i = bisect_left(moves, action) if type(action) is str else len(moves)
        if i < len(moves) and moves[i] == action:  # a legal action's exact text
            code = texts.codes[action]
        else:
            code = self._legal_actions()[self.canonical_action(action)]
        new = state.copy()
        caps = new.make(code)[-1]
        irreversible = code & KIND_MASK in (PLACE, REMOVE) or bool(caps) or new.king != state.king
        key = new.key()
        if irreversible:
            new.reps = {key: 1}
        else:
            new.reps = reps = dict(state.reps)
            reps[key] = reps.get(key, 0) + 1
        end = None if new.end is None else Outcome(new.end[1], WINNER_NAME[new.end[0]])
        captured = tuple(map(texts.names.__getitem__, sorted(caps))) if caps else ()
        position = FidchellPosition(new, captured, end)
        if code & KIND_MASK == PLACE and not self.settings.may_move_with_stones_in_hand:
            position._placed = (moves, texts[code])  # this side could only place: moves were the empty nodes
        return position

    def _why_illegal(self, wanted: str) -> str:
        """A short reason for the IllegalAction message (only computed on failure, game not over)."""
        shape = ACTION_SHAPE.fullmatch(wanted)
        if shape is None:
            return "not an action (@rRsK, rRsK-rRsK, rRsK-rRsK! or x:rRsK,rRsK)"
        state = self._state
        nodes = [token for token in shape.groups() if token and token != "!"]
        for token in nodes:
            if token not in state.geometry.index:
                return f"no node {token!r} on this board"
        side = SIDE_NAME[state.turn]
        hand = state.hand[state.turn]
        if wanted.startswith("x:"):
            if state.challenge != REMOVE_OWED:
                return "no removal is owed here"
            return "name Black stones in ring-then-index order, as many as the rule asks"
        if state.challenge == REMOVE_OWED:
            return "white must first remove black stones (x:...)"
        if wanted.startswith("@"):
            if hand == 0:
                return f"{side} has no stones in hand"
            return "nothing may be placed on the centre" if nodes[0] == "c" else f"{nodes[0]} is occupied"
        if hand > 0 and not self.settings.may_move_with_stones_in_hand:
            return f"{side} must place while stones remain in hand"
        if wanted.endswith("!"):
            if state.variant == 1 or state.turn != B_STONE:
                return "only black may challenge, in fidchell-2"
            if state.challenge != 0:
                return "a challenge is already pending"
            if any(self.hands):
                return "a challenge needs both hands empty"
        return "no such slide (blocked, not along one line, or not the mover's stone)"

    def _perft(self, depth: int) -> int:
        state = self._state.copy()
        state.reps = dict(state.reps)  # perft counts and uncounts in it; this position's stays as it is
        return state.perft(depth)

    def text(self) -> str:
        if self._text is None:
            state = self._state
            hand, variant = state.hand, state.variant
            white = state.geometry.stone_list(self._cells, W_STONE)
            black = state.geometry.stone_list(self._cells, B_STONE)
            ch = f"; CH={_ch_text(state.challenge)}" if variant == 2 else ""
            self._text = (
                f"V={VARIANT_TAG[variant]}; W={white}; B={black}; H={hand[W_STONE]}/{hand[B_STONE]}; "
                f"T={SIDE_LETTER[state.turn]}; K={KING_WORDS[variant][state.king]}{ch}"
            )
        return self._text


def _ch_text(ch: int) -> str:
    return "-" if ch == 0 else "R" if ch == REMOVE_OWED else "0" if ch == UPHELD else str(ch)


def _action_text(a: int, names: list[str]) -> str:
    kind = a & KIND_MASK
    t = a & 255
    if kind == PLACE:
        return "@" + names[t]
    f = (a >> 8) & 255
    if kind == MOVE:
        return f"{names[f]}-{names[t]}"
    if kind == CHALLENGE_MOVE:
        return f"{names[f]}-{names[t]}!"
    return "x:" + names[f] if t == NO_NODE else f"x:{names[f]},{names[t]}"


# ---------------------------------------------------------------------------------------------
# Parsing the state line (§8).

FIELD_ORDER = ("V", "W", "B", "H", "T", "K", "CH")
ACTION_SHAPE = re.compile(r"@(\w+)|(\w+)-(\w+)(!?)|x:(\w+)(?:,(\w+))?")


def _parse(variant: int, text: str, settings: Settings) -> FidchellPosition:
    geo = _geometry(settings.ring_sizes, settings.circles_are_lines, settings.ring_slide_max_steps)
    parts = [part.strip() for part in text.strip().split(";")]
    wanted = FIELD_ORDER if variant == 2 else FIELD_ORDER[:-1]
    if variant == 2 and len(parts) == len(wanted) - 1:
        parts.append("CH=-")  # CH defaults to "-" (§8)
    if len(parts) != len(wanted):
        raise BadPosition(
            f"expected {len(wanted)} fields ({', '.join(wanted)}) separated by ';', got {len(parts)}"
        )
    values = {}
    for part, name in zip(parts, wanted):
        key, eq, value = part.partition("=")
        if not eq or key.strip() != name:
            raise BadPosition(f"expected field {name}=... , got {part!r}")
        values[name] = value.strip()
    if values["V"] != VARIANT_TAG[variant]:
        raise BadPosition(f"V={values['V']!r}: this game is V={VARIANT_TAG[variant]}")
    board = [EMPTY] * geo.nr + [KING]
    for name, code in (("W", W_STONE), ("B", B_STONE)):
        for p in _parse_nodes(name, values[name], geo):
            if board[p] != EMPTY:
                raise BadPosition(f"{name}: node {geo.names[p]} holds two stones")
            board[p] = code
    hands = _parse_hands(values["H"], variant, settings)
    for side, code in ((0, W_STONE), (1, B_STONE)):
        if board.count(code) + hands[side] > STONES_PER_PLAYER:
            raise BadPosition(
                f"{'WB'[side]}: {board.count(code)} stones on the board plus {hands[side]} in hand "
                f"exceed {STONES_PER_PLAYER}"
            )
    if values["T"] not in ("W", "B"):
        raise BadPosition(f"T={values['T']!r}: the side to act is W or B")
    turn = W_STONE if values["T"] == "W" else B_STONE
    words = KING_WORDS[variant]
    if values["K"] not in words:
        raise BadPosition(f"K={values['K']!r}: the King state is {' or '.join(words)}")
    king = words.index(values["K"])
    ch = 0
    if variant == 2:
        ch = _parse_ch(values["CH"], settings)
        if ch != 0:
            if any(hands):
                raise BadPosition("CH: a challenge needs both hands empty")
            if king != 1:
                raise BadPosition("CH: a challenge follows a Black movement, so K must be both")
        if ch == REMOVE_OWED and (turn != W_STONE or board.count(B_STONE) == 0):
            raise BadPosition("CH=R: White owes a removal, so T must be W and Black must have stones")
        if ch == UPHELD and turn != B_STONE:
            raise BadPosition("CH=0: White's last action in the window ended the game, so T must be B")
    return _new_position(variant, settings, geo, board, hands, turn, king, ch)


def _parse_nodes(field: str, value: str, geo: Geometry) -> list[int]:
    if value == "-":
        return []
    nodes = []
    for token in value.split(","):
        token = token.strip()
        if token == "c":
            raise BadPosition(f"{field}: the centre c holds the King, not a stone")
        p = geo.node(token)
        if p is None:
            raise BadPosition(f"{field}: no node {token!r} on this board (nodes are rRsK)")
        nodes.append(p)
    return nodes


def _parse_hands(value: str, variant: int, settings: Settings) -> tuple[int, int]:
    parts = value.split("/")
    if len(parts) != 2 or not all(part.isdigit() for part in parts):
        raise BadPosition(f"H={value!r}: hands are written white/black, e.g. 26/27")
    hands = (int(parts[0]), int(parts[1]))
    full = STONES_PER_PLAYER if variant == 1 else settings.fidchell2_hand
    if any(hand > full for hand in hands):
        raise BadPosition(f"H={value!r}: a hand holds at most {full} stones")
    return hands


def _parse_ch(value: str, settings: Settings) -> int:
    if value == "-":
        return 0
    if value == "R":
        return REMOVE_OWED
    if value == "0":
        return UPHELD
    if value.isdigit() and 1 <= int(value) <= settings.challenge_window:
        return int(value)
    raise BadPosition(f"CH={value!r}: expected -, R, 0 or 1..{settings.challenge_window}")


def _new_position(variant, settings, geo, board, hands, turn, king, ch) -> FidchellPosition:
    state = _Board(variant, settings, geo, board, hands, turn, king, ch)
    return FidchellPosition(state, end=_static_outcome(state))


def _static_outcome(core: _Board) -> Outcome | None:
    """Wins visible in a parsed position (its history is unknown)."""
    movers = [core.turn ^ 3, core.turn]  # the side that acted last is checked first
    for side in movers:
        if side in core.path_sides and core.has_path(side):
            return Outcome(Termination.PATH, SIDE_NAME[side])
    if core.strength_rule and core.white_strength() < MIN_PATH_STRENGTH:
        return Outcome(Termination.STRENGTH, BLACK)
    if core.challenge == UPHELD:
        return Outcome(Termination.CHALLENGE, BLACK)
    return None


def _initial(variant: int, settings: Settings) -> FidchellPosition:
    geo = _geometry(settings.ring_sizes, settings.circles_are_lines, settings.ring_slide_max_steps)
    board = [EMPTY] * geo.nr + [KING]
    if variant == 1:
        hands = (STONES_PER_PLAYER, STONES_PER_PLAYER)
        turn = W_STONE if settings.first_player == WHITE else B_STONE
    else:
        layout = settings.opening_layout.split("/")
        if len(layout) != 2:
            raise BadSettings(
                f"setting opening_layout must be 'white nodes/black nodes', not {settings.opening_layout!r}"
            )
        for value, code, name in ((layout[0], W_STONE, "W"), (layout[1], B_STONE, "B")):
            try:
                nodes = _parse_nodes(name, value.strip(), geo)
            except BadPosition as exc:
                raise BadSettings(f"setting opening_layout: {exc}") from None
            for p in nodes:
                if board[p] != EMPTY:
                    raise BadSettings(f"setting opening_layout: node {geo.names[p]} is used twice")
                board[p] = code
        for code in (W_STONE, B_STONE):
            if board.count(code) + settings.fidchell2_hand > STONES_PER_PLAYER:
                raise BadSettings("setting opening_layout plus fidchell2_hand exceed 27 stones a side")
        hands = (settings.fidchell2_hand, settings.fidchell2_hand)
        turn = W_STONE
    return _new_position(variant, settings, geo, board, hands, turn, 0, 0)


def _game(variant: int) -> Game:
    return Game(
        id=f"fidchell-{variant}",
        # fidchell-2/2026.2: a line after an upheld challenge says CH=0 (2026.1 wrote CH=-, which reads as ongoing)
        ruleset="fidchell-1/2026.1" if variant == 1 else "fidchell-2/2026.2",
        settings_type=Settings,
        initial_position=partial(_initial, variant),
        parse_position=partial(_parse, variant),
        max_plies=Settings().max_actions,
        board_points=_board_points,
    )


FIDCHELL_1 = _game(1)
FIDCHELL_2 = _game(2)
