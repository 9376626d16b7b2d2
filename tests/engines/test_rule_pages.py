"""The rule pages for players (docs/rules/*.md) against the referee: every worked example replays to what its
page says, and every reason word the referee can give has its section, so the site's reason links land."""

import ast
from pathlib import Path

import pytest

from engines import GAME_IDS, IllegalAction, Termination, get_game
from web import docs

ROOT = Path(__file__).resolve().parents[2]
PAGES = {page: ROOT / "docs" / "rules" / name for page, name in docs.RULE_PAGES.items()}
# The referee's modules of each page's games: the words they can end a game with are read from their source.
MODULES = {"tafl9": ["engines/tafl.py"], "fidchell": ["engines/fidchell.py"],
           "shatra": sorted(str(p.relative_to(ROOT)) for p in (ROOT / "engines" / "shatra").glob("*.py"))}


def examples():
    for page, path in PAGES.items():
        for number, example in enumerate(docs.examples_of(path.read_text(encoding="utf-8")), start=1):
            yield pytest.param(example, id=f"{page}-{number}")


def produced_words(page: str) -> set[str]:
    """Every ``Termination.X`` the page's game modules name: what their referee can end a game with."""
    words = set()
    for module in MODULES[page]:
        for node in ast.walk(ast.parse((ROOT / module).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Termination":
                words.add(Termination[node.attr].value)
    return words


@pytest.mark.parametrize("example", examples())
def test_every_worked_example_replays_as_its_page_says(example):
    assert example.captured is not None or example.result or example.illegal or example.next, \
        "an example must say something the referee can check"
    game = get_game(example.game)
    position = game.parse(example.position, dict(example.settings))
    for action in example.play:
        position = position.play(action)
    if example.captured is not None:
        assert example.play, "captured names what the last action took"
        assert sorted(position.captured) == sorted(example.captured)
    if example.next is not None:
        assert position.turn == example.next
    if example.result is not None:
        outcome = position.outcome()
        assert (str(outcome) if outcome else "ongoing") == example.result
    if example.illegal is not None:
        before = position.text()
        assert example.illegal not in position.legal_moves()
        with pytest.raises(IllegalAction):
            position.play(example.illegal)
        assert position.text() == before


def test_every_game_has_worked_examples_and_every_page_ending_is_shown():
    by_game = {}
    for page, path in PAGES.items():
        for example in docs.examples_of(path.read_text(encoding="utf-8")):
            assert docs.PAGE_OF_GAME[example.game] == page, f"a {example.game} example on the {page} page"
            by_game.setdefault(example.game, []).append(example)
    assert sorted(by_game) == sorted(GAME_IDS)
    for game_id, found in by_game.items():
        assert len(found) >= 4, game_id
        assert any(e.illegal for e in found), f"{game_id}: no example of a refused action"
        assert any(e.captured for e in found), f"{game_id}: no example of a capture"
        assert any(e.result and e.result != "ongoing" for e in found), f"{game_id}: no example of an end"


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_reason_the_referee_gives_has_its_section(page):
    words = produced_words(page)
    assert words, page  # the scan finds the words: it would pass vacuously otherwise
    missing = words - docs.anchors(f"rules/{docs.RULE_PAGES[page]}")
    assert not missing, f"{page}: no section for {sorted(missing)}"


def test_the_runners_reasons_are_explained_on_the_rules_index():
    runners = {t.value for t in Termination if t.by_runner}
    missing = runners - docs.anchors("rules/README.md")
    assert not missing


def test_every_example_ending_links_to_its_section():
    for path in PAGES.values():
        for example in docs.examples_of(path.read_text(encoding="utf-8")):
            if example.result and example.result != "ongoing":
                reason = example.result.split("reason=")[1]
                page = docs.PAGE_OF_GAME[example.game]
                assert docs.reason_url(example.game, reason) == f"/rules/{page}/#{reason}"
