"""The replay viewer's boards (web/boards.py): what the page shows at every ply is the referee's position.

The expected boards are written back into each game's own notation here (a test-side writer, not
the module's reader) and compared with the referee's ``text()``; Fidchell's with ``stones()``.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest

from engines import BadRecord, get_game
from engines import shatra as shatra_engine
from engines import tafl as tafl_engine
from engines.record import record_of_play
from web import boards

GAME_IDS = ("tafl9", "fidchell-1", "fidchell-2", "shatra")
STATIC = Path(boards.__file__).parent / "static" / "web"
TEMPLATES = Path(boards.__file__).parent / "templates"
PAGE_BUDGET = 150_000  # bytes on first load, the record itself excluded (issue 10)


def random_record(game_id: str, seed: int, stop: int | None = None) -> dict:
    """A real game: random legal actions chosen from the referee's lists, recorded by the referee."""
    game = get_game(game_id)
    position, actions, rng = game.initial(), [], random.Random(seed)
    while position.outcome() is None and (stop is None or len(actions) < stop):
        action = rng.choice(position.legal_moves())
        actions.append(action)
        position = position.play(action)
    return record_of_play(game.initial(), actions)


def boards_at_every_ply(replayed: dict) -> list[dict[str, str]]:
    shown, found = {}, []
    for entry in replayed["plies"]:
        for name in entry.get("clear", ()):
            del shown[name]
        shown.update(entry.get("set", {}))
        found.append(dict(shown))
    return found


def written_back(game_id: str, board: dict[str, str]) -> str:
    """The board field of the position text that ``board`` (name -> piece code) stands for."""
    if game_id == "tafl9":
        letter = {"bs": "b", "ws": "w", "wk": "k"}
        ranks = ["".join(letter.get(board.get(f"{file}{rank}"), "1") for file in "ABCDEFGHI")
                 for rank in range(9, 0, -1)]
    else:
        def piece(name: str) -> str:
            code = board.get(name)
            if code is None:
                return "1"
            kind = code[1].upper() if code[0] == "w" else code[1]
            return "!" + kind if code.endswith("!") else kind

        ranks = ["".join(piece(shatra_engine.ALGEBRAIC_NAMES[sq]) for sq in shatra_engine.RANK_SQUARES[rank])
                 for rank in range(14, 0, -1)]
    return "/".join(re.sub("1+", lambda run: str(len(run.group())), rank) for rank in ranks)


def referee_positions(record: dict) -> list:
    position = get_game(record["game"]).parse(record["initial"], record["settings"])
    positions = [position]
    for action in record["actions"]:
        position = position.play(action)
        positions.append(position)
    return positions


def assert_shows(game_id: str, shown: dict[str, str], position) -> None:
    if game_id.startswith("fidchell"):
        expected = {"c": "nk"}
        for side in ("white", "black"):
            expected.update(dict.fromkeys(position.stones(side), side[0] + "s"))
        assert shown == expected
    else:
        assert written_back(game_id, shown) == position.text().split()[0]


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_ply_shows_exactly_the_referees_position(game_id, seed):
    record = random_record(game_id, seed)
    replayed = boards.replay(json.loads(json.dumps(record)))
    positions = referee_positions(record)
    shown = boards_at_every_ply(replayed)
    assert len(shown) == len(positions) == len(record["actions"]) + 1
    hands = None
    for ply, (entry, board, position) in enumerate(zip(replayed["plies"], shown, positions)):
        assert_shows(game_id, board, position)
        assert entry["turn"] == position.turn
        if ply:
            assert entry["action"] == record["actions"][ply - 1]
            assert entry.get("captured", []) == list(position.captured)
            before = shown[ply - 1]
            assert entry.get("taken", []) == [before[name] for name in position.captured]
        hands = entry.get("hands", hands)
        if game_id.startswith("fidchell"):
            assert hands == list(position.hands)
        else:
            assert hands is None
    assert replayed["over"] is True
    assert replayed["outcome"] == {"winner": record["winner"], "reason": record["reason"]}
    assert boards.at_ply(replayed)["cells"] == shown[-1]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_live_page_gets_the_same_plies_in_pieces(game_id):
    """A page that holds plies 0..n asks for the ones after n; joined, they are the whole replay."""
    record = random_record(game_id, 3)
    whole = boards.replay(record)
    n = len(record["actions"]) // 2
    in_progress = {key: record[key] for key in ("game", "settings", "initial")} | {"actions": record["actions"][:n]}
    start = boards.replay(in_progress)
    assert start["over"] is False and start["outcome"] is None
    assert len(start["plies"]) == n + 1
    rest = boards.replay(record, since=n)
    assert rest["first"] == n + 1
    assert start["plies"] + rest["plies"] == whole["plies"]
    assert rest["over"] is True and rest["outcome"] == whole["outcome"]
    assert boards.replay(record, since=len(record["actions"]))["plies"] == []


def test_a_king_capture_is_marked_and_the_king_is_gone():
    """Tafl book T24a: the king on the throne is surrounded; the page marks E5 and counts the king lost."""
    record = record_of_play(get_game("tafl9").parse("9/9/9/4b4/3bk2b1/4b4/9/9/9 b 0"), ["H5-F5"])
    last = boards.replay(record)["plies"][-1]
    assert last["move"] == ["H5", "F5"]
    assert last["captured"] == ["E5"] and last["taken"] == ["wk"]
    assert sorted(last["clear"]) == ["E5", "H5"]
    state = boards.at_ply(boards.replay(record))
    assert state["lost"] == {"white": ["wk"], "black": []}
    svg = boards.board_svg("tafl9", None, state)
    assert 'class="pt throne is-captured" data-point="E5" data-piece=""' in svg
    assert 'href="#tafl9-wk"' in svg  # drawn faded where it was taken


def test_an_urgent_shatra_piece_and_a_capture_series_are_shown():
    """Shatra book T17 (an urgent tura after d1xd3) and T12 (a series that loops back to its start)."""
    game = get_game("shatra")
    urgent = boards.replay(record_of_play(game.parse("3/3/3/1/k6/7/7/7/7/K6/1/3/1p1/PRP w T - 0 1"), ["d1xd3"]))
    assert urgent["plies"][-1]["set"] == {"d3": "wr!"}
    assert urgent["plies"][-1]["move"] == ["d1", "d3"]
    loop = boards.replay(record_of_play(game.parse("3/3/3/1/k6/7/3p3/2p1p2/2Pp3/K6/1/3/3/3 w - - 0 1"),
                                        ["c6xc8xe8xe6xc6"]))
    last = loop["plies"][-1]
    assert last["move"] == ["c6", "c8", "e8", "e6", "c6"]
    assert sorted(last["captured"]) == ["c7", "d6", "d8", "e7"] and last["taken"] == ["bp"] * 4


def referee_point_names(game_id: str) -> set[str]:
    return {point.name for point in get_game(game_id).points()}


def svg_points(svg: str) -> dict[str, str]:
    tree = ElementTree.fromstring(svg)  # the markup is well-formed XML
    return {g.get("data-point"): g.get("data-piece") for g in tree.iter("{http://www.w3.org/2000/svg}g")
            if g.get("data-point") is not None}


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_board_has_a_data_point_for_every_square_the_notation_names(game_id):
    names = referee_point_names(game_id)
    assert len(names) == {"tafl9": 81, "shatra": 62}.get(game_id, 109)
    empty = svg_points(boards.board_svg(game_id))
    assert set(empty) == names
    assert set(empty.values()) == {""}
    assert boards.point_names(game_id) == names


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_server_draws_the_last_ply_without_javascript(game_id):
    record = random_record(game_id, 4)
    context = boards.viewer(record)
    final = referee_positions(record)[-1]
    drawn = {name: piece for name, piece in svg_points(context["board_svg"]).items() if piece}
    assert_shows(game_id, drawn, final)
    assert context["live_url"] is None  # a finished game is not polled
    outcome = final.outcome()
    assert context["status"].endswith(f"({outcome.reason}).")


def test_the_board_follows_a_settings_change_of_the_notation():
    """Tafl with ranks numbered from the top: the squares keep their place but change names."""
    settings = {"ranks_numbered_from_bottom": False}
    assert set(svg_points(boards.board_svg("tafl9", settings))) == {
        point.name for point in get_game("tafl9").points(settings)}
    record = record_of_play(get_game("tafl9").initial(settings), ["E7-H7"])  # E3-H3 of the book's names
    last = boards.replay(record)["plies"][-1]
    assert last["set"] == {"H7": "ws"} and last["clear"] == ["E7"] and last["move"] == ["E7", "H7"]


@pytest.mark.parametrize(
    "record, message",
    [
        ([], "a record must be a JSON object"),
        ({"game": "tafl9", "initial": "x"}, "lacks key"),
        ({"game": "go", "initial": "x", "actions": []}, "unknown game"),
        ({"game": "tafl9", "initial": "x", "actions": []}, "record header"),
        ({"game": "tafl9", "initial": tafl_engine.INITIAL_TFEN, "actions": [3]}, "list of strings"),
        ({"game": "tafl9", "initial": tafl_engine.INITIAL_TFEN, "actions": ["E3-H3", "E3-H3"]},
         r"action 2 \(E3-H3\) is illegal"),
        ({"game": "tafl9", "initial": tafl_engine.INITIAL_TFEN, "actions": [], "settings": {"nope": 1}},
         "unknown setting"),
    ],
)
def test_a_bad_record_is_refused_with_its_fault_named(record, message):
    with pytest.raises(BadRecord, match=message):
        boards.replay(record)


@pytest.mark.parametrize("since", [-1, "3", 1.5, True])
def test_since_must_be_a_ply_number(since):
    record = random_record("tafl9", 1, stop=4)
    with pytest.raises(ValueError, match="since must be a ply number"):
        boards.replay(record, since=since)


def render_viewer(context: dict) -> str:
    from django.template import Context, Engine

    engine = Engine(dirs=[str(TEMPLATES)], libraries={"static": "django.templatetags.static"})
    return engine.get_template("web/_replay.html").render(Context(context))


def test_the_include_renders_an_accessible_viewer_with_its_data():
    record = random_record("shatra", 6, stop=12)
    del record["winner"], record["reason"]
    html = render_viewer(boards.viewer(record, live_url="/games/7/live"))
    assert 'data-live-url="/games/7/live"' in html
    data = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html, re.S).group(1)
    assert json.loads(data) == boards.replay(record)
    for label in ("First position", "Previous ply", "Next ply", "Last position"):
        assert f'aria-label="{label}"' in html
    assert '<label for="replay-ply">' in html and 'id="replay-ply"' in html
    assert 'aria-label="Altai Shatra board"' in html
    assert "web/replay.js" in html and "web/boards.css" in html
    finished = render_viewer(boards.viewer(random_record("shatra", 6), live_url="/games/7/live"))
    assert "data-live-url" not in finished


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_game_page_weighs_less_than_the_budget(game_id):
    """Board SVG, viewer markup, script and style of the heaviest board: under 150 KB, the record aside."""
    record = random_record(game_id, 7)
    html = render_viewer(boards.viewer(record))
    without_record = re.sub(r'<script id="replay-data".*?</script>', "", html, flags=re.S)
    weight = sum(len(part.encode()) for part in (
        without_record, (STATIC / "replay.js").read_text(), (STATIC / "boards.css").read_text()))
    assert weight < PAGE_BUDGET / 2, weight  # half the budget: the rest of the page needs room too


def test_the_script_and_style_are_served_by_the_project():
    script = (STATIC / "replay.js").read_text()
    style = (STATIC / "boards.css").read_text()
    assert not re.search(r"https?://", script + style)  # nothing from a CDN
    assert "import " not in script and "require(" not in script  # no dependencies


def legend(svg: str) -> list[str]:
    tree = ElementTree.fromstring(svg)
    return [text.text for text in tree.iter("{http://www.w3.org/2000/svg}text") if text.get("class") == "legend-text"]


def test_every_board_has_a_legend_that_says_what_its_marked_squares_are():
    """Issue 21: Tafl's corners carry a cross but are not exits; Shatra's framed zones are the fortresses."""
    tafl9 = legend(boards.board_svg("tafl9"))
    assert any("Corner" in line and "not an exit" in line for line in tafl9)
    assert any(line.startswith("Throne E5") for line in tafl9) and any("Escape square" in line for line in tafl9)
    shatra = legend(boards.board_svg("shatra"))
    assert "Fortress: White's c1–e3, Black's c12–e14" in shatra and any("d4 and d11" in line for line in shatra)
    assert any("rRsK" in line for line in legend(boards.board_svg("fidchell-2")))


def test_fidchell_numbers_every_point_on_its_ring_so_r4s15_can_be_found():
    tree = ElementTree.fromstring(boards.board_svg("fidchell-1"))
    numbers = [text for text in tree.iter("{http://www.w3.org/2000/svg}text") if "index" in text.get("class", "")]
    assert len(numbers) == 108  # every point but the centre
    sizes = get_game("fidchell-1").settings().ring_sizes.split(",")
    assert sorted(int(text.text) for text in numbers) == sorted(k for size in sizes for k in range(int(size)))
    rings = [text.text for text in tree.iter("{http://www.w3.org/2000/svg}text") if "ring" in text.get("class", "")]
    assert rings == [f"r{ring}" for ring in range(1, 8)]


def test_numbered_shatra_squares_carry_their_numbers():
    tree = ElementTree.fromstring(boards.board_svg("shatra", {"coordinates": "numeric"}))
    numbers = [text.text for text in tree.iter("{http://www.w3.org/2000/svg}text") if "number" in text.get("class", "")]
    assert sorted(numbers, key=int) == [str(n) for n in range(1, 63)]
