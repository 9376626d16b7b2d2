"""The project's own pages for players, written in Markdown in the repository (``docs/rules/*.md``,
``docs/protocol.md``), as the site's HTML."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from functools import cache
from html import escape
from pathlib import Path

import nh3
from django.urls import reverse
from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin

from engines import NONE, RefereeError, Termination, get_game

from . import boards

# The pages' Markdown: docs/ through the link web/texts in a checkout, the same files as package data in a wheel.
DOCS = Path(__file__).resolve().parent / "texts"
RULES = DOCS / "rules"
# The rule pages, by the name in their address (/rules/<page>/): one page per game, both Fidchells on one.
RULE_PAGES = {"tafl9": "tafl9.md", "fidchell": "fidchell.md", "shatra": "shatra.md"}
PAGE_OF_GAME = {"tafl9": "tafl9", "fidchell-1": "fidchell", "fidchell-2": "fidchell", "shatra": "shatra"}
# Where a game id's own rules start on its page (/rules/fidchell-2/ is that section of the Fidchell page).
SECTION_OF_GAME = {"fidchell-1": "rules-one", "fidchell-2": "rules-2"}

TAGS = {"a", "blockquote", "br", "code", "em", "h1", "h2", "h3", "h4", "hr", "li", "ol", "p", "pre",
        "strong", "table", "tbody", "td", "th", "thead", "tr", "ul", "div"}
ATTRIBUTES = {"a": {"href"}, "h1": {"id"}, "h2": {"id"}, "h3": {"id"}, "h4": {"id"}, "th": {"scope"},
              "div": {"data-example"}}
# What the example renderer leaves in the page, to be swapped for the drawn example after sanitising. Raw
# HTML is off, so the page's own text can never produce this tag: it is escaped to &lt;div.
_EXAMPLE_MARK = re.compile(r'<div data-example="(\d+)"></div>')
_DEFS = re.compile(r"<defs>.*?</defs>", re.DOTALL)


def slug(text: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, spaces to hyphens, other punctuation dropped."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


# ------------------------------------------------------------------ worked examples


@dataclass(frozen=True)
class Example:
    """A worked example: a position of ``game``, the actions played from it, and what the page says follows."""

    game: str
    position: str
    play: tuple[str, ...] = ()
    illegal: str | None = None  # an action the referee refuses after ``play``
    captured: tuple[str, ...] | None = None  # what the last action of ``play`` took (None: not stated)
    result: str | None = None  # "ongoing" or "winner=<side> reason=<word>" after ``play``
    next: str | None = None  # the side to act after ``play`` (Fidchell's extra turns)
    settings: tuple[tuple[str, object], ...] = ()  # rule decisions changed from their defaults


_KEYS = {"game", "position", "play", "illegal", "captured", "result", "next", "settings"}


def parse_example(text: str) -> Example:
    """An ``example`` block's fields; raises ValueError naming a bad line (the page tests call this)."""
    fields: dict[str, str] = {}
    for line in text.strip().splitlines():
        key, sep, value = line.partition(":")
        key = key.strip()
        if not sep or key not in _KEYS or key in fields:
            raise ValueError(f"example line {line!r}: expected one 'key: value' per key, keys {sorted(_KEYS)}")
        fields[key] = value.strip()
    if "game" not in fields or "position" not in fields:
        raise ValueError(f"example {text!r} needs a game and a position")
    captured = fields.get("captured")
    decided = []
    for item in fields.get("settings", "").split():
        name, _, value = item.partition("=")
        decided.append((name, {"true": True, "false": False}.get(value, int(value) if value.isdigit() else value)))
    return Example(
        game=fields["game"], position=fields["position"], play=tuple(fields.get("play", "").split()),
        illegal=fields.get("illegal"), result=fields.get("result"), next=fields.get("next"),
        captured=None if captured is None else tuple(c for c in captured.split(",") if c and c != "-"),
        settings=tuple(decided))


def examples_of(text: str) -> list[Example]:
    """Every ``example`` block of a Markdown page, in order."""
    tokens = _markdown().parse(text)
    return [parse_example(t.content) for t in tokens if t.type == "fence" and t.info.strip() == "example"]


def _side_actions(example: Example) -> list[tuple[str, str]]:
    """(side, action) for each action of ``play``, the side read from the referee (Fidchell repeats turns)."""
    game = get_game(example.game)
    position = game.parse(example.position, dict(example.settings))
    played = []
    for action in example.play:
        played.append((position.turn, action))
        position = position.play(action)
    return played


def _example_html(example: Example, drawn: set[str]) -> str:
    """The example drawn: one board, the position after its actions with the last one marked (or the position
    itself when nothing is played), and what happens. ``drawn`` holds the boards' families already on the page:
    their piece symbols are defined once, since every board of a page reaches them by id."""
    record = {"game": example.game, "initial": example.position, "actions": list(example.play),
              "settings": dict(example.settings)}
    try:
        replayed = boards.replay(record)
        played = _side_actions(example)
    except RefereeError as exc:  # the page tests keep this from happening; a page never breaks on it
        return f'<p class="error">This example cannot be replayed: {escape(str(exc))}</p>'
    board = boards.board_svg(example.game, record["settings"], boards.at_ply(replayed))
    family = example.game.split("-")[0]
    if family in drawn:
        board = _DEFS.sub("", board, count=1)
    drawn.add(family)
    caption = "After the last action, marked" if example.play else "The position"
    facts = [f"<dt>From</dt><dd><code>{escape(example.position)}</code></dd>"]
    if played:
        moves = ", ".join(f"{side} <code>{escape(action)}</code>" for side, action in played)
        facts.append(f"<dt>Played</dt><dd>{moves}</dd>")
    if example.captured is not None:
        taken = ", ".join(f"<code>{escape(name)}</code>" for name in example.captured) or "nothing"
        facts.append(f"<dt>Captured</dt><dd>{taken}</dd>")
    if example.illegal:
        facts.append(f"<dt>Refused</dt><dd><code>{escape(example.illegal)}</code> is not a legal action</dd>")
    if example.next:
        facts.append(f"<dt>Next to act</dt><dd>{escape(example.next)}</dd>")
    if example.result:
        facts.append(f"<dt>Result</dt><dd>{_result_html(example.game, example.result)}</dd>")
    return (f'<div class="example"><figure class="example-board">{board}<figcaption>{caption}</figcaption></figure>'
            f'<dl class="example-facts">{"".join(facts)}</dl></div>')


def _result_html(game_id: str, result: str) -> str:
    if result == "ongoing":
        return "the game goes on"
    fields = dict(part.partition("=")[::2] for part in result.split())
    winner, reason = fields.get("winner", ""), fields.get("reason", "")
    who = "a draw" if winner == NONE else f"{escape(winner)} wins"
    url = reason_url(game_id, reason)
    word = f'<a href="{escape(url)}">{escape(reason)}</a>' if url else escape(reason)
    return f"{who} ({word})"


# ------------------------------------------------------------------ rendering


@cache
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    anchors_plugin(md, min_level=1, max_level=4, slug_func=slug)
    return md


def _site_href(doc: str, href: str) -> str | None:
    """The site's address for a link written in the repository page ``doc`` (a path under docs/), or None
    for a file the site does not serve (the text stays, without a link). Absolute links are kept."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", href) or href.startswith("#"):
        return href
    path, _, anchor = href.partition("#")
    target = posixpath.normpath(posixpath.join(posixpath.dirname(doc), path))
    fragment = f"#{anchor}" if anchor else ""
    if target == "protocol.md":
        return reverse("web:protocol") + fragment
    if target == "rules/README.md":
        return reverse("web:rules-index") + fragment
    if target.startswith("rules/") and target.endswith(".md"):
        page = target[len("rules/"):-len(".md")]
        if page in RULE_PAGES:
            return reverse("web:rules", args=[page]) + fragment
    return None


@cache
def render(doc: str) -> str:
    """The page ``doc`` (a path under docs/, e.g. ``rules/tafl9.md``) as sanitised HTML, examples drawn."""
    text = (DOCS / doc).read_text(encoding="utf-8")
    md = _markdown()
    tokens = md.parse(text)
    examples = []
    opened = []  # the open links' site addresses (None: not served), to drop the matching close too
    for token in tokens:
        if token.type == "fence" and token.info.strip() == "example":
            examples.append(parse_example(token.content))
            token.type, token.content = "html_block", f'<div data-example="{len(examples) - 1}"></div>\n'
        for child in token.children or ():
            if child.type == "link_open":
                href = _site_href(doc, child.attrGet("href") or "")
                opened.append(href)
                if href is None:
                    child.type, child.tag, child.attrs = "html_inline", "", {}
                    child.content = ""
                else:
                    child.attrSet("href", href)
            elif child.type == "link_close" and opened.pop() is None:
                child.type, child.content = "html_inline", ""
    html = md.renderer.render(tokens, md.options, {})
    # A code block wider than the page scrolls: tabindex lets a keyboard reach and scroll it too.
    clean = nh3.clean(html, tags=TAGS, attributes=ATTRIBUTES, url_schemes={"http", "https", "mailto"}, link_rel=None,
                      set_tag_attribute_values={"pre": {"tabindex": "0"}})
    drawn: set[str] = set()
    return _EXAMPLE_MARK.sub(lambda m: _example_html(examples[int(m.group(1))], drawn), clean)


def reason_url(game_id: str, reason: str) -> str | None:
    """Where the rules explain ``reason`` for a game of ``game_id``: its section on the game's page for the
    rules' own ends, the rules index for the runner's (a bot's fault, void); None for a word we do not know."""
    try:
        termination = Termination(reason)
    except ValueError:
        return None
    page = PAGE_OF_GAME.get(game_id)
    if page is not None and termination.value in anchors(f"rules/{RULE_PAGES[page]}"):
        return reverse("web:rules", args=[page]) + f"#{termination.value}"
    return reverse("web:rules-index") + f"#{termination.value}"


@cache
def anchors(doc: str) -> frozenset[str]:
    """The ids of the headings of the page ``doc``, as ``render`` gives them."""
    tokens = _markdown().parse((DOCS / doc).read_text(encoding="utf-8"))
    return frozenset(t.attrGet("id") for t in tokens if t.type == "heading_open" and t.attrGet("id"))
