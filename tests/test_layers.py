"""The layers' import arrows (shared/DESIGN.md), read from the source: every import, also inside functions.

``engines`` is the bot's library, mounted in every sandbox: the standard library only, and nothing that
starts or controls processes (that is the host side's work). ``runner``, the host side, imports ``engines``
and the standard library. The service reaches the runner through two doors only.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STDLIB = frozenset(sys.stdlib_module_names)
# Processes, pipes, archives and scratch directories are the host's: a bot's library needs none of them.
HOST_ONLY_STDLIB = frozenset({"subprocess", "ctypes", "signal", "select", "socket", "multiprocessing", "threading",
                              "concurrent", "tarfile", "zipfile", "shutil", "tempfile"})
# tournaments/ and ratings/ may use the runner only here: the referee (play, smoke-test, unpack a version) and
# the upload check (an archive and a manifest read by the same code that unpacks them for a game).
RUNNER_DOORS = frozenset({"tournaments/referee.py", "tournaments/services/uploads.py"})


def imports(path: Path) -> list[tuple[str, int]]:
    """(absolute module name, line) for every import in ``path``, relative ones resolved."""
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    if path.name == "__init__.py":
        package = path.relative_to(ROOT).parts[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = list(package[:len(package) - node.level + 1]) if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            if node.module is None:  # ``from . import x``: each name may be a module
                found += [(f"{module}.{alias.name}", node.lineno) for alias in node.names]
            else:
                found.append((module, node.lineno))
    return found


def modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def top(module: str) -> str:
    return module.split(".")[0]


def test_the_helper_sees_imports_inside_functions_and_relative_ones():
    resolved = dict(imports(ROOT / "runner" / "localmatch.py"))
    assert "runner.match" in resolved and "engines.stats" in resolved
    assert "runner.bots" in dict(imports(ROOT / "runner" / "sandbox" / "base.py"))  # from ..bots
    inside = [module for module, _ in imports(ROOT / "tournaments" / "referee.py")]
    assert "runner.match" in inside  # imported in a function body


@pytest.mark.parametrize("path", modules("engines"), ids=lambda p: str(p.relative_to(ROOT)))
def test_engines_imports_only_the_standard_library_and_itself(path):
    outside = [(module, line) for module, line in imports(path) if top(module) not in STDLIB | {"engines"}]
    assert outside == [], f"{path.relative_to(ROOT)}: the bot's library may import only engines and the stdlib"


@pytest.mark.parametrize("path", modules("engines"), ids=lambda p: str(p.relative_to(ROOT)))
def test_engines_starts_no_process(path):
    host = [(module, line) for module, line in imports(path) if top(module) in HOST_ONLY_STDLIB]
    assert host == [], f"{path.relative_to(ROOT)}: processes, pipes and archives belong on the host side (runner/)"


@pytest.mark.parametrize("path", modules("runner"), ids=lambda p: str(p.relative_to(ROOT)))
def test_runner_imports_only_engines_and_the_standard_library(path):
    outside = [(module, line) for module, line in imports(path)
               if top(module) not in STDLIB | {"engines", "runner"}]
    assert outside == [], f"{path.relative_to(ROOT)}: the host side may import only engines, runner and the stdlib"


def test_the_service_reaches_the_runner_only_through_its_doors():
    through = {str(path.relative_to(ROOT)) for package in ("tournaments", "ratings") for path in modules(package)
               if any(top(module) == "runner" for module, _ in imports(path))}
    assert through <= RUNNER_DOORS, sorted(through - RUNNER_DOORS)
