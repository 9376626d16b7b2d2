"""The rules and the protocol on the site: rendered from the repository's Markdown, sanitised, the worked examples
drawn on the site's boards, the result reasons linked to their rules, the starter kits and the bot's library
downloadable."""

import io
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from django.template import Context, Template

from engines import GAME_IDS, Termination
from tests.engines.test_rule_pages import produced_words
from web import docs, starters

ROOT = Path(__file__).resolve().parents[2]


def ids(html: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', html))


@pytest.mark.parametrize("page", sorted(docs.RULE_PAGES))
def test_a_rule_page_is_its_markdown_rendered_with_every_example_drawn(client, page):
    response = client.get(f"/rules/{page}/")
    assert response.status_code == 200
    html = response.content.decode()
    text = (ROOT / "docs" / "rules" / docs.RULE_PAGES[page]).read_text(encoding="utf-8")
    examples = docs.examples_of(text)
    assert html.count('<div class="example">') == len(examples) > 0
    assert html.count("<svg") == len(examples)  # one board of the site's own per example
    assert "```" not in html and "\n## " not in html  # rendered, not shown as Markdown
    first = examples[0]
    assert f'data-game="{first.game}"' in html and first.position in html
    # Each board's pieces are the referee's position after the example's actions.
    assert 'data-piece="' in html and "is-to" in html
    assert "How a game ends" in html and 'id="how-a-game-ends"' in html


def test_an_unknown_game_has_no_rules_page_but_the_sites_404(client):
    response = client.get("/rules/chess/")
    assert response.status_code == 404
    assert "Not found" in response.content.decode()


@pytest.mark.parametrize("game_id, section", [("fidchell-1", "rules-one"), ("fidchell-2", "rules-2")])
def test_a_fidchell_game_id_leads_to_its_rule_set(client, game_id, section):
    response = client.get(f"/rules/{game_id}/")
    assert response.status_code == 302 and response["Location"] == f"/rules/fidchell/#{section}"
    assert f'id="{section}"' in client.get("/rules/fidchell/").content.decode()


def test_the_rules_index_lists_every_game_and_the_runners_reasons(client):
    html = client.get("/rules/").content.decode()
    for page in docs.RULE_PAGES:
        assert f'href="/rules/{page}/' in html
    assert {t.value for t in Termination if t.by_runner} <= ids(html)


def test_the_markdown_is_sanitised_and_its_raw_html_shown_as_text(tmp_path, monkeypatch):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "evil.md").write_text(
        '# Evil\n\n<script>alert(1)</script>\n\n<div data-example="0"></div>\n\n'
        '<p style="color:red" onclick="x()">styled</p>\n\n[click](javascript:alert(1)) '
        '![pic](https://example.org/a.png) [rules](tafl9.md#escape)\n')
    monkeypatch.setattr(docs, "DOCS", tmp_path)
    docs.render.cache_clear()
    try:
        html = docs.render("rules/evil.md")
    finally:
        docs.render.cache_clear()
    tags = re.findall(r"<([a-z0-9]+)([^>]*)>", html)  # the real tags; the page's own HTML is escaped text
    assert {name for name, _ in tags} <= {"h1", "p", "a"}
    assert not [attrs for _, attrs in tags if re.search(r"\b(style|on\w+)=", attrs)]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # shown as text, never run
    assert not [attrs for _, attrs in tags if "javascript:" in attrs]
    assert '<div class="example">' not in html  # a page cannot forge an example's slot
    assert '<a href="/rules/tafl9/#escape">rules</a>' in html  # links between pages become the site's addresses


def test_the_protocol_page_is_rendered_with_links_to_the_rules_and_the_downloads(client):
    html = client.get("/take-part/protocol/").content.decode()
    assert '<h2 id="6-errors-and-results">' in html and "<table>" in html
    assert '<pre class="doc">' not in html and "\n## " not in html
    for target in ("/rules/tafl9/#positions-tfen", "/rules/fidchell/#positions-the-state-line",
                   "/rules/shatra/#positions-the-fen", "/rules/tafl9/#how-a-game-ends"):
        assert f'href="{target}"' in html
    for kit in starters.kit_names():
        assert f'href="/take-part/{kit}.zip"' in html
        assert client.get(f"/take-part/{kit}.zip")["Content-Type"] == "application/zip"
    assert 'href="/take-part/engines.zip"' in html


def test_the_bot_library_download_runs_a_bot_kit_outside_the_repository(client, tmp_path):
    response = client.get("/take-part/engines.zip")
    assert response.status_code == 200 and "engines.zip" in response["Content-Disposition"]
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        names = archive.namelist()
        archive.extractall(tmp_path)
    assert {"engines/botkit.py", "engines/fidchellkit.py", "engines/shatra/__init__.py"} <= set(names)
    assert not [name for name in names if not name.endswith(".py")]
    # As a bot author's machine runs it: the unpacked directory first on the path (this venv has the project too).
    script = ("import sys; sys.path.insert(0, '.'); from engines.botkit import Greedy; import engines;"
              "from engines import get_game; print(engines.__file__);"
              "print(len(get_game('tafl9').initial().legal_moves()))")
    ran = subprocess.run([sys.executable, "-I", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                         timeout=60)
    assert ran.returncode == 0, ran.stderr
    where, count = ran.stdout.split()
    assert Path(where).is_relative_to(tmp_path) and count == "56"


def render_result(reason: str, game_id: str) -> str:
    return Template("{% load rules %}{{ reason|reason_link:game_id }}").render(
        Context({"reason": reason, "game_id": game_id}))


def test_a_reason_links_to_its_rule():
    assert render_result("challenge", "fidchell-2") == \
        '<a class="reason-link" href="/rules/fidchell/#challenge">challenge</a>'
    assert render_result("escape", "tafl9") == '<a class="reason-link" href="/rules/tafl9/#escape">escape</a>'
    assert render_result("timeout", "shatra") == '<a class="reason-link" href="/rules/#timeout">timeout</a>'
    assert render_result("max-plies", "shatra").endswith('"/rules/shatra/#max-plies">max-plies</a>')
    assert render_result("max-plies", "fidchell-1").endswith('"/rules/#max-plies">max-plies</a>')
    assert render_result("<b>odd</b>", "tafl9") == "&lt;b&gt;odd&lt;/b&gt;"  # an unknown word: text, escaped


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_reason_a_game_can_end_with_lands_on_its_section(client, game_id):
    """What the referee of the game can say (read from its source) and what the runner can say of any game."""
    words = produced_words(docs.PAGE_OF_GAME[game_id]) | {t.value for t in Termination if t.by_runner}
    pages = {}
    for word in sorted(words):
        url = docs.reason_url(game_id, word)
        path, anchor = url.split("#")
        if path not in pages:
            pages[path] = ids(client.get(path).content.decode())
        assert anchor == word and anchor in pages[path], (game_id, word, url)


@pytest.mark.django_db
def test_game_match_and_bot_pages_link_each_result_to_its_rule(client, league):
    match = league["matches"][0]
    game = match.games.order_by("number").first()
    expected = f'href="{docs.reason_url(match.game, game.reason)}">{game.reason}</a>'
    for path in (f"/games/{game.pk}/", f"/matches/{match.pk}/", f"/bots/{league['alpha'].bot_id}/"):
        html = client.get(path).content.decode()
        assert expected in html, path
