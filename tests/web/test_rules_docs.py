"""The repository's Markdown links resolve inside a clone: every relative link of README.md and docs/**.md names
a file of the repository (and a heading of it, where it names one), and nothing points outside it (../shared/)."""

import re
from pathlib import Path

import pytest

from web import docs

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "rules").glob("*.md"))]


def links(path: Path) -> list[str]:
    """Every link and image target of a Markdown file, as the renderer parses it."""
    found = []
    for token in docs._markdown().parse(path.read_text(encoding="utf-8")):
        for child in token.children or ():
            if child.type == "link_open":
                found.append(child.attrGet("href"))
            elif child.type == "image":
                found.append(child.attrGet("src"))
    return found


def headings(path: Path) -> frozenset[str]:
    tokens = docs._markdown().parse(path.read_text(encoding="utf-8"))
    return frozenset(t.attrGet("id") for t in tokens if t.type == "heading_open")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_names_a_file_and_heading_of_the_repository(page):
    text = page.read_text(encoding="utf-8")
    assert "../shared" not in text and "shared/rules" not in text and "shared/protocol" not in text
    for href in links(page):
        if href.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = href.partition("#")
        target = (page.parent / path).resolve() if path else page
        assert target.is_relative_to(ROOT), f"{page.name}: {href} leaves the repository"
        assert target.exists(), f"{page.name}: {href} names no file"
        if anchor and target.suffix == ".md":
            assert anchor in headings(target), f"{page.name}: {href} names no heading of {target.name}"


def test_the_rule_pages_are_linked_from_the_readme():
    assert "docs/rules/README.md" in links(ROOT / "README.md")
    assert "docs/protocol.md" in links(ROOT / "README.md")
    index = links(ROOT / "docs" / "rules" / "README.md")
    for name in docs.RULE_PAGES.values():
        assert any(href.partition("#")[0] == name for href in index), name


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_rule_page_the_text_names_exists(page):
    """A rule page named in running text (`rules/tafl.md` §9, once) is a page of the repository too."""
    for name in re.findall(r"(?<![\w/.-])((?:docs/)?rules/[\w.-]+\.md)", page.read_text(encoding="utf-8")):
        assert (page.parent / name).exists(), f"{page.name} names {name}, which is not in the repository"
