"""Issue 22 item 2: the pages draw from the engines' public API. No module of ``web`` uses a name that starts
with ``_`` from another module, imported (``from engines.tafl import _read_tfen``) or reached through an
imported module (``tafl._read_tfen``); python-chess's boards are drawn the same way."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "web"


def private_uses(source: str) -> list[str]:
    """``line: name`` for every private name ``source`` takes from another module."""
    tree = ast.parse(source)
    modules: set[str] = set()  # the local names bound to imported modules (or to names imported from one)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{node.lineno}: {node.module}.{alias.name}")
                modules.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            found.append(f"{node.lineno}: {node.value.id}.{node.attr}")
    return sorted(found)


def test_the_finder_sees_both_ways_of_reaching_a_private_name():
    source = "from engines import tafl\nfrom engines.shatra import _rules\nx = tafl._read_tfen('')\ny = tafl.FILES\n"
    assert private_uses(source) == ["2: engines.shatra._rules", "3: tafl._read_tfen"]
    assert private_uses("class A:\n    def f(self):\n        return self._cells\n") == []  # its own names


@pytest.mark.parametrize("path", sorted(WEB.rglob("*.py")), ids=lambda p: str(p.relative_to(WEB)))
def test_web_uses_no_private_name_of_another_module(path):
    assert private_uses(path.read_text()) == [], f"web/{path.relative_to(WEB)} reaches into another module"
