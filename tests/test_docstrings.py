"""Every module of the project opens with a docstring that says what it is for, in one or two sentences.

How a module works and why belongs in docs/architecture.md ("Modules in detail"), where it is read beside the
layers; a docstring that grows past ``MAX_LINES`` is a sign that it is being written there again.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Every package of the project (a new one is covered the day it is added), not the tests and the scripts.
PACKAGES = sorted({path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests", "benchmarks", "scripts"})
MAX_LINES = 3  # two sentences of a 120-character line
# Being moved into a play/ package by another branch at the same time: trimmed when that lands (then empty this).
def modules() -> list[Path]:
    """The project's own modules: not the migrations (written by Django), not the seeded bots, not empty files."""
    return [path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
            if "migrations" not in path.parts and not path.is_relative_to(ROOT / "seeds" / "bots")
            and path.read_text().strip()]


def docstring_lines(source: str) -> int | None:
    text = ast.get_docstring(ast.parse(source))
    return None if text is None else len(text.strip().splitlines())


def test_every_package_is_read():
    assert {"engines", "tournaments", "ops", "config"} <= set(PACKAGES)


def test_the_count_reads_the_opening_docstring_only():
    assert docstring_lines('"""One.\nTwo."""\n\ndef f():\n    """Not counted."""\n') == 2
    assert docstring_lines("import os\n") is None


@pytest.mark.parametrize("path", modules(), ids=lambda path: str(path.relative_to(ROOT)))
def test_a_module_says_what_it_is_for_in_a_few_lines(path):
    name = str(path.relative_to(ROOT))
    lines = docstring_lines(path.read_text())
    assert lines is not None, f"{name}: no docstring; say in a sentence or two what the module is for"
    assert lines <= MAX_LINES, (f"{name}: a docstring of {lines} lines; keep what it is for, move how and why "
                                "to docs/architecture.md")

