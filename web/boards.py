"""The replay viewer's boards: SVG for every game id, and the plies of a record as the referee computes them."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from typing import Any

from engines import NONE, BadRecord, Position, RefereeError, fidchell, get_game
from engines.core import BLACK, SIDES, WHITE

TITLES = {
    "tafl9": "Tafl 9x9",
    "fidchell-1": "Fidchell (Rules One)",
    "fidchell-2": "Fidchell (Rules 2)",
    "shatra": "Altai Shatra",
}

# What the tallies under the board show for a piece (also sent to the page in the replay JSON).
GLYPHS = {
    "tafl9": {"ws": "○", "bs": "●", "wk": "♔"},
    "fidchell": {"ws": "○", "bs": "●", "nk": "◎"},
    "shatra": {"wk": "♔", "wq": "♕", "wr": "♖", "wb": "♗", "wp": "♙",
               "bk": "♚", "bq": "♛", "br": "♜", "bb": "♝", "bp": "♟"},
}


def _family(game_id: str) -> str:
    return "fidchell" if game_id.startswith("fidchell") else game_id


# ------------------------------------------------------------------ reading positions


def cells(position: Position) -> dict[str, str]:
    """The piece code on every occupied square or point of ``position``, by its name in the game's notation."""
    return position.pieces()


def hands(position: Position) -> list[int] | None:
    """Stones in hand, [white, black], where the game has a hand (Fidchell); else None."""
    return list(position.hands) if _family(position.game.id) == "fidchell" else None


def _move_squares(game_id: str, action: str, names: frozenset[str]) -> list[str]:
    """The squares an action names, in order (from, landings, to), for highlighting; none for a removal."""
    family = _family(game_id)
    if family == "fidchell" and action.startswith("x:"):
        return []
    if family == "tafl9":
        action = action.split("x")[0]  # a record may append the captures: E2-E3xE4
    return [token for token in re.split(r"[-x*@!]|=[A-Za-z]", action) if token in names]


# ------------------------------------------------------------------ replay


def replay(record: dict[str, Any], since: int | None = None) -> dict[str, Any]:
    """The plies of ``record`` for the viewer, every position computed by the referee.

    ``record`` is an engines record (game, settings, initial, actions, and for a finished game
    winner/reason); a game in progress is the same without winner and reason. With ``since`` = n,
    only plies n+1 onwards are listed (what a live page polls for). Raises ``BadRecord`` naming the
    fault. The shape::

        {"game": "tafl9", "first": 0, "over": true, "outcome": {"winner": "white", "reason": "escape"},
         "glyphs": {code: character}, "plies": [
            {"turn": "white", "set": {"E5": "wk", ...}},                        # ply 0: every piece
            {"action": "E3-H3", "move": ["E3", "H3"], "turn": "black",
             "set": {"H3": "ws"}, "clear": ["E3"], "captured": [...], "taken": [...]}, ...]}

    ``set``/``clear``/``captured``/``taken`` appear only when not empty; ``captured`` lists the
    squares the action took pieces from and ``taken`` those pieces' codes, in the same order;
    ``hands`` ([white, black]: stones in hand, Fidchell) appears on ply 0 and wherever it changes.
    ``outcome`` is null while the game goes on.
    """
    if since is not None and (type(since) is not int or since < 0):
        raise ValueError(f"since must be a ply number (0 or more), not {since!r}")
    game_id, position = _start(record)
    names = point_names(game_id, position.settings)
    first = 0 if since is None else since + 1
    plies = []
    before = cells(position) if first <= 1 else {}
    if first == 0:
        plies.append(_ply_entry(position, None, {}, before, None, names))
    for number, action in enumerate(record["actions"], start=1):
        try:
            after = position.play(action)
        except RefereeError as exc:
            raise BadRecord(f"action {number} ({action}) is illegal: {exc}") from None
        if number >= first - 1:
            now = cells(after)
            if number >= first:
                plies.append(_ply_entry(after, position, before, now, action, names))
            before = now
        position = after
    outcome = position.outcome()
    if outcome is not None:
        result = outcome.words()
    elif record.get("reason"):  # stopped by the runner (timeout, crash, ...), not by the rules
        result = {"winner": record.get("winner", NONE), "reason": record["reason"]}
    else:
        result = None
    return {
        "game": game_id,
        "first": first,
        "over": result is not None,
        "outcome": result,
        "glyphs": GLYPHS[_family(game_id)],
        "plies": plies,
    }


def _start(record: Any) -> tuple[str, Position]:
    if not isinstance(record, dict):
        raise BadRecord("a record must be a JSON object")
    missing = [key for key in ("game", "initial", "actions") if key not in record]
    if missing:
        raise BadRecord(f"record lacks key(s) {', '.join(missing)}")
    if not isinstance(record["actions"], list) or not all(isinstance(a, str) for a in record["actions"]):
        raise BadRecord("actions must be a list of strings")
    try:
        game = get_game(record["game"])
        return game.id, game.parse(record["initial"], record.get("settings"))
    except RefereeError as exc:
        raise BadRecord(f"record header: {exc}") from None


def _ply_entry(position, previous, before: dict, now: dict, action: str | None, names) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    if action is not None:
        entry["action"] = action
        entry["move"] = _move_squares(position.game.id, action, names)
    entry["turn"] = position.turn
    changed = {name: code for name, code in now.items() if before.get(name) != code}
    if changed:
        entry["set"] = changed
    cleared = [name for name in before if name not in now]
    if cleared:
        entry["clear"] = cleared
    captured = [name for name in position.captured if name in before]
    if captured:
        entry["captured"] = captured
        entry["taken"] = [before[name] for name in captured]
    in_hand = hands(position)
    if in_hand is not None and (previous is None or in_hand != hands(previous)):
        entry["hands"] = in_hand
    return entry


def at_ply(replayed: dict[str, Any], ply: int | None = None) -> dict[str, Any]:
    """The board state the page shows at ``ply`` (the last by default), from a full ``replay``:
    ``cells``, the ``move``/``captured``/``taken`` of the action that led there, ``hands`` and the
    pieces each side has lost so far (``lost``: {side: [codes]})."""
    plies = replayed["plies"]
    last = len(plies) - 1 if ply is None else ply
    board: dict[str, str] = {}
    lost: dict[str, list[str]] = {WHITE: [], BLACK: []}
    in_hand = None
    for entry in plies[: last + 1]:
        in_hand = entry.get("hands", in_hand)
        for name in entry.get("clear", ()):
            board.pop(name, None)
        board.update(entry.get("set", {}))
        for code in entry.get("taken", ()):
            lost[BLACK if code.startswith("b") else WHITE].append(code.rstrip("!"))
    entry = plies[last]
    return {"cells": board, "move": entry.get("move", []), "captured": entry.get("captured", []),
            "taken": entry.get("taken", []), "hands": in_hand, "lost": lost}


# ------------------------------------------------------------------ drawing


@dataclass(frozen=True)
class Point:
    name: str
    x: float  # the centre, in SVG units
    y: float
    kind: str  # CSS classes: the engine's kinds (throne, corner, escape, fortress, gate, centre), dark, light, ringN


@dataclass(frozen=True)
class Layout:
    width: float
    height: float  # of the board, without the legend and the tallies
    half: float  # half the size a piece is drawn at
    points: tuple[Point, ...]
    background: str  # lines, zones and labels, under the points
    square_cells: bool  # a square (tafl, shatra) or a small ring around an intersection (fidchell)
    legend: tuple[tuple[str, str], ...] = ()  # (the kind of point its key is drawn as, or "", the words)


LEGEND_LINE = 22  # the height of one line of the legend, in SVG units


def point_names(game_id: str, settings=None) -> frozenset[str]:
    """Every square or point name of the game's notation, as the board draws them."""
    return frozenset(point.name for point in _layout(game_id, _settings(game_id, settings)).points)


def _settings(game_id: str, settings):
    return get_game(game_id).settings(settings)


def board_svg(game_id: str, settings=None, state: dict[str, Any] | None = None) -> str:
    """The board of ``game_id`` as inline SVG markup: every square/point a ``<g data-point=NAME
    data-piece=CODE>``, then the tallies (stones in hand, pieces lost). Empty without ``state``;
    with ``state`` (from ``at_ply``) the pieces, the last move and its captures are drawn."""
    settings = _settings(game_id, settings)
    layout = _layout(game_id, settings)
    family = _family(game_id)
    state = state or {}
    board = state.get("cells", {})
    marks: dict[str, list[str]] = {}
    move = state.get("move", [])
    for i, name in enumerate(move):
        marks.setdefault(name, []).append("is-from" if i == 0 and len(move) > 1 else
                                          "is-to" if i == len(move) - 1 else "is-via")
    ghosts = dict(zip(state.get("captured", []), state.get("taken", [])))
    for name in ghosts:
        marks.setdefault(name, []).append("is-captured")
    h = layout.half
    title = f"{TITLES[game_id]} board"
    below = len(layout.legend) * LEGEND_LINE + 56  # the legend, then the two tallies
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board board-{family}" data-game="{game_id}" '
        f'viewBox="0 0 {layout.width:g} {layout.height + below:g}" role="img" aria-label="{title}">'
        f"<title>{title}</title><defs>{_symbols(family)}</defs>{layout.background}"
    ]
    cell = _cell(layout)
    deco = _decorations(h)
    for point in layout.points:
        code = board.get(point.name, "")
        shown = code or ghosts.get(point.name, "")
        classes = " ".join(["pt", *point.kind.split(), *marks.get(point.name, [])])
        href = f' href="#{family}-{shown.rstrip("!")}"' if shown else ""
        out.append(
            f'<g class="{classes}" data-point="{point.name}" data-piece="{code}" '
            f'transform="translate({point.x:g} {point.y:g})"><title>{point.name}</title>'
            f'{cell}{deco.get(point.kind, "")}'
            f'<use class="piece"{href} x="{-h:g}" y="{-h:g}" width="{2 * h:g}" height="{2 * h:g}"/></g>'
        )
    out.append(_legend(layout))
    out.append(_tallies(layout, family, state))
    out.append("</svg>")
    return "".join(out)


def _cell(layout: Layout) -> str:
    h = layout.half
    return (f'<rect class="cell" x="{-h:g}" y="{-h:g}" width="{2 * h:g}" height="{2 * h:g}"/>'
            if layout.square_cells else f'<circle class="cell" r="{h:g}"/><circle class="dot" r="3"/>')


def _decorations(h: float) -> dict[str, str]:
    q = h / 2
    cross = f'<path class="deco" d="M{-q:g} {-q:g}L{q:g} {q:g}M{q:g} {-q:g}L{-q:g} {q:g}"/>'
    return {"throne": cross, "corner": cross}  # Tafl: nobody may stop there (the king only at the start)


def _legend(layout: Layout) -> str:
    """The key under the board: each marked kind of square drawn small, with what it means."""
    out = ['<g class="legend">']
    key = 8  # half the key's size
    scale = key / layout.half
    deco = _decorations(layout.half)
    for i, (kind, words) in enumerate(layout.legend):
        y = layout.height + 6 + (i + 0.5) * LEGEND_LINE
        x = 12
        if kind:
            out.append(f'<g class="key {kind}" transform="translate({x + key:g} {y:g}) scale({scale:g})">'
                       f'{_cell(layout)}{deco.get(kind, "")}</g>')
            x += 2 * key + 8
        out.append(f'<text class="legend-text" x="{x:g}" y="{y:g}" dominant-baseline="middle">{escape(words)}</text>')
    out.append("</g>")
    return "".join(out)


def tally_text(family: str, side: str, state: dict[str, Any]) -> str:
    """One tally line: "White: 19 in hand, lost 2 ●●" (the script writes the same)."""
    parts = []
    in_hand = state.get("hands")
    if in_hand is not None:
        parts.append(f"{in_hand[SIDES.index(side)]} in hand")
    lost = state.get("lost", {}).get(side, [])
    glyphs = GLYPHS[family]
    parts.append(f"lost {len(lost)} " + "".join(glyphs.get(code, "?") for code in lost))
    return f"{side.capitalize()}: " + ", ".join(parts).rstrip()


def _tallies(layout: Layout, family: str, state: dict[str, Any]) -> str:
    y = layout.height + len(layout.legend) * LEGEND_LINE + 20
    return "".join(
        f'<text class="tally" data-tally="{side}" x="12" y="{y + 24 * i:g}">'
        f"{escape(tally_text(family, side, state))}</text>"
        for i, side in enumerate(SIDES)
    )


def _symbols(family: str) -> str:
    """One ``<symbol id="FAMILY-CODE">`` per piece, drawn in a 100x100 box."""
    def disc(code: str, fill: str, stroke: str, inner: str = "") -> str:
        return (f'<symbol id="{family}-{code}" viewBox="0 0 100 100"><circle cx="50" cy="50" r="42" '
                f'fill="{fill}" stroke="{stroke}" stroke-width="6"/>{inner}</symbol>')

    light, dark = "#f7f1e3", "#1d1d1d"
    if family == "tafl9":
        crown = ('<path d="M28 66 L24 36 L38 50 L50 28 L62 50 L76 36 L72 66 Z" fill="#b8860b" '
                 'stroke="#3b2a00" stroke-width="4" stroke-linejoin="round"/>')
        return disc("ws", light, dark) + disc("bs", dark, "#000", '<circle cx="50" cy="50" r="24" fill="none" '
                                                'stroke="#666" stroke-width="4"/>') + disc("wk", light, dark, crown)
    if family == "fidchell":
        return (disc("ws", light, dark) + disc("bs", dark, "#000")
                + disc("nk", "#d4a017", "#5a4000", '<circle cx="50" cy="50" r="20" fill="#f5d76e" '
                       'stroke="#5a4000" stroke-width="5"/>'))
    out = []
    for side, fill, stroke, ink in (("w", light, dark, dark), ("b", dark, "#000", light)):
        for kind, glyph in zip("kqrbp", "♚♛♜♝♟"):
            out.append(disc(side + kind, fill, stroke,
                            f'<text x="50" y="53" text-anchor="middle" dominant-baseline="middle" '
                            f'font-size="62" fill="{ink}">{glyph}</text>'))
    return "".join(out)


@lru_cache(maxsize=32)
def _layout(game_id: str, settings) -> Layout:
    family = _family(game_id)
    if family == "tafl9":
        return _tafl_layout(settings)
    if family == "fidchell":
        return _fidchell_layout(settings)
    return _shatra_layout(settings)


def _label(x: float, y: float, text: str) -> str:
    return f'<text class="coord" x="{x:g}" y="{y:g}" text-anchor="middle" dominant-baseline="middle">{text}</text>'


SQUARE = 44  # the side of a square, in SVG units
MARGIN = 26  # room for the coordinates


def _tafl_layout(settings) -> Layout:
    squares = get_game("tafl9").points(settings)
    points, labels = [], []
    for square in squares:
        file, rank = square.coords
        row = 8 - rank  # row 0 at the top
        points.append(Point(square.name, MARGIN + (file + 0.5) * SQUARE, MARGIN / 2 + (row + 0.5) * SQUARE,
                            square.kind))
        if rank == 0:
            labels.append(_label(MARGIN + (file + 0.5) * SQUARE, MARGIN / 2 + 9 * SQUARE + 12, square.name[0]))
        if file == 0:
            labels.append(_label(MARGIN / 2, MARGIN / 2 + (row + 0.5) * SQUARE, square.name[1:]))
    width = MARGIN + 9 * SQUARE + MARGIN / 2
    frame = (f'<rect class="frame" x="{MARGIN - 4}" y="{MARGIN / 2 - 4}" width="{9 * SQUARE + 8}" '
             f'height="{9 * SQUARE + 8}"/>')
    throne = next(square.name for square in squares if square.kind == "throne")
    legend = (  # docs/rules/tafl9.md, "The board"
        ("throne", f"Throne {throne}: only the king, and only at the start"),
        ("corner", "Corner ✕: nobody may stop here; not an exit"),
        ("escape", "Escape square: the king wins by stopping here"),
    )
    return Layout(width, MARGIN / 2 + 9 * SQUARE + 26, SQUARE / 2, tuple(points), frame + "".join(labels), True,
                  legend)


def _fidchell_layout(settings) -> Layout:
    geometry = fidchell.geometry(settings)
    step = 40  # between rings
    centre = step * (geometry.rings + 0.75)
    points, where, numbers = [], {}, []
    for index, point in enumerate(get_game("fidchell-1").points(settings)):
        ring, k = point.coords
        if not ring:
            where[index] = (centre, centre)
            points.append(Point(point.name, centre, centre, point.kind))
            continue
        angle = 2 * math.pi * k / geometry.sizes[ring - 1]  # clockwise from north (rule book, "The board")
        x, y = centre + ring * step * math.sin(angle), centre - ring * step * math.cos(angle)
        where[index] = (x, y)
        points.append(Point(point.name, round(x, 1), round(y, 1), f"ring{ring}"))
        # Each point's index on its ring, just outside it and a little clockwise, so r4s15 can be found.
        out_by = ring * step + 11
        lx, ly = centre + out_by * math.sin(angle + 0.09), centre - out_by * math.cos(angle + 0.09)
        numbers.append(f'<text class="coord index" x="{lx:.1f}" y="{ly:.1f}" text-anchor="middle" '
                       f'dominant-baseline="middle">{k}</text>')
    lines = [f'<circle class="line" cx="{centre:g}" cy="{centre:g}" r="{ring * step}"/>'
             for ring in range(1, geometry.rings + 1)]
    out, _inward = geometry.radial_steps
    segments = [(p, q) for p, q in enumerate(out) if q is not None]
    segments += [(geometry.centre, p) for p in geometry.inner_nodes]
    path = "".join(f"M{where[p][0]:.1f} {where[p][1]:.1f}L{where[q][0]:.1f} {where[q][1]:.1f}" for p, q in segments)
    lines.append(f'<path class="line" d="{path}"/>')
    # Ring numbers up the north quarter-line's left: the names are rRsK, K counted clockwise from north.
    lines += [f'<text class="coord ring" x="{centre - 7:g}" y="{centre - ring * step + 20:g}" text-anchor="end">'
              f"r{ring}</text>" for ring in range(1, geometry.rings + 1)]
    size = 2 * centre
    legend = (  # docs/rules/fidchell.md, "The board"
        ("", "A point rRsK is on ring R (r1 the innermost, numbers up the"),
        ("", "top line) at index K: the small numbers, 0 at the top, clockwise."),
        ("", "c is the centre, the King's point."),
    )
    return Layout(size, size, 15, tuple(points), "".join(lines) + "".join(numbers), False, legend)


def _span(names: list[str]) -> str:
    return f"{names[0]}–{names[-1]}"


def _shatra_layout(settings) -> Layout:
    ditch = 14  # the gap between the halves (ranks 7 and 8)
    algebraic = settings.coordinates == "algebraic"

    def y_of(rank: int) -> float:
        return MARGIN / 2 + (14 - rank + 0.5) * SQUARE + (ditch if rank <= 7 else 0)

    points, numbers, zones = [], [], {}
    for square in get_game("shatra").points(settings):
        zones.setdefault(square.kind, []).append(square.name)
        file, rank = square.coords[0], square.coords[1] + 1
        colour = "dark" if (file + 1 + rank) % 2 == 0 else "light"
        x, y = MARGIN + (file + 0.5) * SQUARE, y_of(rank)
        points.append(Point(square.name, x, y, f"{colour} {square.kind}".strip()))
        if not algebraic:  # numbered squares: each square's number in its corner
            numbers.append(f'<text class="coord number" x="{x - SQUARE / 2 + 3:g}" y="{y - SQUARE / 2 + 10:g}">'
                           f"{square.name}</text>")
    x0 = MARGIN
    parts = [f'<rect class="ditch" x="{x0 - 4}" y="{y_of(8) + SQUARE / 2:g}" width="{7 * SQUARE + 8}" '
             f'height="{ditch}"/>']
    for fort_top, gate in ((14, 11), (3, 4)):  # each fortress (c-e, 3 ranks down from fort_top) and its gate
        x = x0 + 2 * SQUARE
        fort_y, gate_y = y_of(fort_top) - SQUARE / 2, y_of(gate) - SQUARE / 2
        parts.append(f'<rect class="fortress-wall" x="{x - 3:g}" y="{fort_y - 3:g}" width="{3 * SQUARE + 6}" '
                     f'height="{3 * SQUARE + 6}"/>')
        parts.append(f'<rect class="gate-wall" x="{x + SQUARE - 3:g}" y="{gate_y - 3:g}" width="{SQUARE + 6}" '
                     f'height="{SQUARE + 6}"/>')
    parts.append(f'<rect class="frame" x="{x0 - 4}" y="{y_of(10) - SQUARE / 2 - 4:g}" width="{7 * SQUARE + 8}" '
                 f'height="{y_of(5) - y_of(10) + SQUARE + 8:g}"/>')
    if algebraic:
        for file in range(7):
            parts.append(_label(x0 + (file + 0.5) * SQUARE, y_of(1) + SQUARE / 2 + 12, "abcdefg"[file]))
        for rank in range(1, 15):
            parts.append(_label(MARGIN / 2, y_of(rank), str(rank)))
    width = MARGIN + 7 * SQUARE + MARGIN / 2
    legend = (  # docs/rules/shatra.md, "The board"
        ("fortress dark", f"Fortress: White's {_span(zones['fortress'][:9])}, Black's {_span(zones['fortress'][9:])}"),
        ("gate light", f"Gate: {' and '.join(zones['gate'])}, each fortress's door"),
        ("ditch", "Ditch: between the two halves"),
    )
    return Layout(width, y_of(1) + SQUARE / 2 + 26, SQUARE / 2, tuple(points), "".join(parts + numbers), True,
                  legend)


# ------------------------------------------------------------------ for the page


def viewer(record: dict[str, Any], live_url: str | None = None) -> dict[str, Any]:
    """The context ``web/_replay.html`` expects: the board drawn at the last ply, the replay, the live URL."""
    replayed = replay(record)
    state = at_ply(replayed)
    return {
        "board_svg": board_svg(replayed["game"], record.get("settings"), state),
        "replay": replayed,
        "live_url": None if replayed["over"] else live_url,
        "status": status_text(replayed),
    }


def status_text(replayed: dict[str, Any], ply: int | None = None) -> str:
    """The line over the board: "Ply 12 of 80: E3-H3. Black to move." or the result (the script writes the same)."""
    plies = replayed["plies"]
    last = replayed["first"] + len(plies) - 1
    ply = last if ply is None else ply
    entry = plies[ply - replayed["first"]]
    text = f"Ply {ply} of {last}"
    if "action" in entry:
        text += f": {entry['action']}"
    text += "."
    outcome = replayed["outcome"]
    if ply == last and outcome:
        winner = outcome["winner"]
        text += (" Draw" if winner == NONE else f" {winner.capitalize()} wins") + f" ({outcome['reason']})."
    else:
        text += f" {entry['turn'].capitalize()} to move."
    return text
