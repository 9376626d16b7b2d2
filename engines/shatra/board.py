"""The mutable core of Altai Shatra: move generation, make/unmake and perft."""

from __future__ import annotations

from itertools import compress, cycle
from typing import TYPE_CHECKING

from ..core import Termination
from .tables import (
    AXES,
    BIT,
    DIR_OF_STEP,
    E_,
    ENEMY_PIECES,
    ENEMY_TOWERS,
    FG_SQUARES,
    FIELD_RANGES,
    FIELD_SLICES,
    FILE_OF,
    FORTRESS,
    FORWARD,
    GATE,
    HOPS,
    IN_FG,
    LAST_RANK,
    LETTERS,
    NEIGHBOURS,
    ON_BOARD,
    OWN_PIECES,
    RANK_OF,
    RAY,
    REL,
    ROLES,
    SIDEWAYS_HOPS,
    SLIDER_LINES,
    SLIDER_RAYS,
    SLIDES,
    STEP,
    STEP_FORWARD,
    W_,
    B,
    K,
    P,
    Q,
    R,
)

if TYPE_CHECKING:
    from .rules import _Rules


def _piece_counts(b) -> tuple[tuple[int, int], int]:
    """(pieces of each side in its own fortress+gate, pieces on the board): ``_Board.fortress_counts``, ``.total``."""
    fg = tuple(sum(1 for sq in FG_SQUARES[c] if b[sq] and b[sq] >> 3 == c) for c in (0, 1))
    return fg, 98 - bytes(b).count(0)


def _draw_reason(rules: _Rules, hist, noprogress: int, total: int, bare: int, ply: int) -> Termination | None:
    """The draw reason of D1-D4 for the position whose key is hist[-1], if any."""
    if rules.repetition and hist and hist.count(hist[-1]) >= rules.repetition:
        return Termination.REPETITION
    if rules.no_progress and noprogress >= rules.no_progress:
        return Termination.NO_PROGRESS
    if rules.bare and total == 2 and bare >= rules.bare:
        return Termination.BARE_BIYS
    if rules.max_plies and ply >= rules.max_plies:
        return Termination.MAX_PLIES
    return None


class _Board:
    """A mutable position with make/unmake; the engine behind every public method."""

    __slots__ = (
        "rules", "board", "side", "temdeks", "ep_square", "noprogress", "ply", "urgent", "fortress_counts", "total",
        "winner", "bare", "hist",
    )

    def __init__(self, rules: _Rules, board, side, temdeks, ep_square, noprogress, ply, urgent, winner, bare, hist=(),
                 counts=None):
        """``hist`` is kept as given: a tuple for reading, a list where perft pushes and pops keys."""
        self.rules = rules
        self.board = bytearray(board)
        self.side = side
        self.temdeks = list(temdeks)
        self.ep_square = ep_square
        self.noprogress = noprogress
        self.ply = ply
        self.urgent = urgent
        self.winner = winner
        self.bare = bare
        self.hist = hist
        if counts is None:
            counts = _piece_counts(board)
        self.fortress_counts = list(counts[0])
        self.total = counts[1]

    def key(self):
        """FEN fields 1-4 (board with urgent marks, side, temdeks, ep): what repetition compares."""
        return (bytes(self.board), self.side, self.temdeks[0], self.temdeks[1], self.ep_square, self.urgent)

    # ------------------------------------------------------------ helpers

    def available(self, c: int) -> tuple[int, ...]:
        """Promotion types side c may choose now (book §5.11, A11)."""
        on_board, pool = bytes(self.board), self.rules.pool
        return tuple(t for t in (Q, R, B) if on_board.count(t | c << 3) < pool[t])

    def drawn(self) -> str | None:
        """The draw reason of D1-D4 for the current position (whose key is hist[-1]), if any."""
        return _draw_reason(self.rules, self.hist, self.noprogress, self.total, self.bare, self.ply)

    def own_squares(self, cells):
        """The squares of the side to move's pieces in name order; ``cells`` is ``bytes(self.board)``."""
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
        b, c = self.board, self.side
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
            if t == P and first and self.ep_square >= 0 and REL[c][s] == 8:
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
        b, c = self.board, self.side
        m = self.ep_square
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
        b = self.board
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
        # en passant jumps over an empty square
        candidates = steppers if self.ep_square >= 0 else steppers & before_prey
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

        ``cells`` is ``bytes(self.board)`` if the caller has it.
        """
        b, c, rules = self.board, self.side, self.rules
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
            restricted = self.temdeks[c] and not IN_FG[c][s]
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
        b, c, rules = self.board, self.side, self.rules
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
        b, c = self.board, self.side
        rel = REL[c]
        row = rows.steps(s, p)
        for land in RAY[s][FORWARD[c]]:
            if b[land]:
                break
            if rel[land] >= 8:
                out.append(row[land])

    def _quiet_piece(self, s, p, out, rows, cells):
        """Quiet moves and drops of the piece p on s (book §5.3-5.5), appended to out; for reserves and intruders.

        ``cells`` is ``bytes(self.board)``.
        """
        c, rules = self.side, self.rules
        st = rules.settings
        t = p & 7
        tem = self.temdeks[c]
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
        b, c, rules = self.board, self.side, self.rules
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

        ``rows`` (a ``_QuietRows``) says how a move is written; ``cells`` is ``bytes(self.board)`` if the caller has it.
        """
        b, c, rules = self.board, self.side, self.rules
        cells = cells or bytes(b)
        tem = self.temdeks[c]
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
        urg = self.urgent
        if not urg:
            return []
        b, c = self.board, self.side
        out = []
        mask = self.rules.drop_mask(c, bytes(b))
        for s in FORTRESS[c] + (GATE[c],):
            if urg & BIT[s] and b[s] and b[s] >> 3 == c:
                out += compress(rows.drops(s, b[s]), mask)
        return out

    def legal_parts(self, cells, rows):
        """The legal move set of book §5.12 but for the biy-safety filter (A22), ignoring whether the game is over:
        (capture series as move tuples, quiet moves and drops as ``rows`` writes them);
        ``cells`` is ``bytes(self.board)``.
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
        """The legal move set of book §5.12, ignoring whether the game is over; ``cells`` is ``bytes(self.board)``."""
        caps, quiet = self.legal_parts(cells or bytes(self.board), self.rules.move_rows)
        moves = caps + quiet
        if not self.rules.settings.may_leave_biy_capturable:
            moves = [m for m in moves if not self._leaves_biy_capturable(m)]
        return moves

    def _leaves_biy_capturable(self, m):
        undo = self.make(m)
        try:
            if self.winner is not None:
                return False
            return any(any((self.board[v] & 7) == K for v in series[3]) for series in self.captures()[0])
        finally:
            self.unmake(m, undo)

    # ------------------------------------------------------------ make / unmake

    def make(self, m):
        frm, to, piece, caps, path, _, _ = m
        b = self.board
        c = self.side
        tem = self.temdeks
        counts = self.fortress_counts
        moving = b[frm]
        myfg = IN_FG[c]
        undo = (
            moving, self.ep_square, self.noprogress, self.urgent, tem[0], tem[1], counts[0], counts[1], self.winner,
            self.bare, None,
        )
        reserve = tem[c] and myfg[frm]
        b[frm] = 0
        if myfg[frm]:
            counts[c] -= 1
        if not caps:
            b[to] = piece
            if myfg[to]:
                counts[c] += 1
            if self.urgent:
                self.urgent &= ~BIT[frm]
            if tem[c] and not counts[c]:
                tem[c] = False
            if (moving & 7) == P:
                self.noprogress = 0
                self.ep_square = self._ep_after(frm, to) if (to - frm == 14 or frm - to == 14) else -1
            else:
                self.noprogress = 0 if reserve else self.noprogress + 1
                self.ep_square = -1
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
            counts[c] += 1
        efg = IN_FG[e]
        urg = self.urgent & ~BIT[frm]
        for v in caps:
            if efg[v]:
                counts[e] -= 1
            urg &= ~BIT[v]
        count_before = undo[6 + c]
        mid_series_off = (
            reserve and self.rules.settings.temdek_off_mid_series and count_before == 1
            and any(not myfg[land] for land, _ in path)
        )
        if reserve and myfg[to] and not mid_series_off:
            urg |= BIT[to]
        self.urgent = urg
        for x in taken:
            if (x & 7) == K:
                self.winner = c
        promoted = self._delayed_promotions(e, taken) if self.rules.settings.delayed_promotion else None
        if tem[c] and (not counts[c] or mid_series_off):
            tem[c] = False
        if tem[e] and not counts[e]:
            tem[e] = False
        self.ep_square = -1
        self.noprogress = 0
        self.total -= len(caps)
        self.bare = 0
        self.side = e
        self.ply += 1
        return undo[:10] + ((taken, promoted),)

    def _ep_after(self, frm, to):
        """The skipped square if the opponent now has an en-passant jump (normalised ep field), else -1."""
        if not self.rules.settings.en_passant:
            return -1
        b = self.board
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
        b = self.board
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
        b = self.board
        b[to] = 0
        b[frm] = undo[0]
        self.ep_square, self.noprogress, self.urgent = undo[1], undo[2], undo[3]
        tem, counts = self.temdeks, self.fortress_counts
        tem[0], tem[1], counts[0], counts[1] = undo[4], undo[5], undo[6], undo[7]
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


