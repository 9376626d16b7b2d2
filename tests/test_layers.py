"""The layers' import arrows (docs/architecture.md), read from the source: every import, also inside functions.

``engines`` is the bot's library, mounted in every sandbox: the standard library only, and nothing that
starts or controls processes (that is the host side's work). ``runner``, the host side, imports ``engines``
and the standard library. The service reaches the runner through two doors only.

Then the whole project (docs/architecture.md draws it): every module has a layer, imports point to its own
layer or below, no two modules import each other through any chain (the strongly connected components of
the import graph, imports in functions included), and an import in a function body says why on its line.
"""

from __future__ import annotations

import ast
import re
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
# The referee plays versions, uploads read archives once; migration 0005 read the raw archives an older install
# had stored, with the same reader (a migration is frozen in time: it may not call services that change later).
RUNNER_DOORS = frozenset({"tournaments/referee.py", "tournaments/services/uploads.py",
                          "tournaments/migrations/0005_bundle_stored_uploads.py"})


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


def test_a_claimed_match_crosses_each_boundary_once():
    """``play`` reaches the runner only from its referee adapter; ``workers`` plays a claimed match only through
    ``play.claimed`` and never imports the runner; ``play`` takes no work and sends no message (below workers)."""
    def runner_users(package: str) -> set[str]:  # runner.stopping, the process's stop request, is not the runner
        return {module for module, imported in GRAPH.items()
                if top(module) == package and layer(module) == layer(package)
                and any(top(target) == "runner" and target != "runner.stopping" for target, *_ in imported)}

    assert runner_users("play") == {"play.referee"}
    assert runner_users("workers") == set()
    assert {target for target, *_ in GRAPH["workers.playing"] if top(target) == "play"} == {
        "play.claimed", "play.lease"}


def test_the_service_reaches_the_runner_only_through_its_doors():
    through = {str(path.relative_to(ROOT)) for package in ("tournaments", "ratings") for path in modules(package)
               if any(top(module) == "runner" for module, _ in imports(path))}
    assert through <= RUNNER_DOORS, sorted(through - RUNNER_DOORS)


# The whole project's layers, bottom up (docs/architecture.md draws them and says why). A module may import its
# own layer and those below; the longest matching prefix names a module's layer.
PACKAGES = ("engines", "runner", "knobs", "ratings", "tournaments", "seeds", "play", "workers", "hooks", "api", "web",
            "ops", "config")
LAYERS = {
    "engines": 0,  # the bot's library
    "runner": 1,  # the host side: sandbox, match runner, bundles
    "knobs": 1,  # the arena's settings, declared once and read typed; beside the runner, which reads no settings
    "ratings": 2,  # rating math and the rating tables; its foreign keys to tournaments are strings, not imports
    "tournaments": 3,  # the domain: models, services, selectors, the referee
    "seeds": 4,  # a fresh install's data, written through the domain's services
    "play": 5,  # a claimed match until its report: lease, the games through the runner, live publishing, limits
    "workers": 6,  # Celery tasks and what they orchestrate
    "hooks": 7,  # owners' webhooks: endpoints, notices, signed deliveries (their task); the API and site serve them
    # The layer that serves people: the REST API, then what is built on it, side by side and unknown to each other:
    # the site's pages and the operators' side (the admin, its dashboard, the manage.py commands).
    "api": 8,
    "web": 9, "ops": 9,
    "config": 10,  # settings, root URLs, the Celery app, WSGI/ASGI
}
# No exceptions: what looks like an upward arrow is a reference by name, not an import (config.celery's
# autodiscover_tasks(["workers"]), a dotted path in the settings, ratings' ForeignKey("tournaments.Bot"), a task
# sent by its name).
LAZY = re.compile(r"#.*\blazy: \S")  # a reason, also after a noqa


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


PROJECT = {module_name(path): path for package in PACKAGES for path in modules(package)}


def layer(module: str) -> int:
    prefixes = [prefix for prefix in LAYERS if module == prefix or module.startswith(prefix + ".")]
    return LAYERS[max(prefixes, key=len)]


def own_module(name: str) -> str | None:
    """The project module an imported name lives in (``tournaments.models.Bot`` → ``tournaments.models``)."""
    while name and name not in PROJECT:
        name = name.rpartition(".")[0]
    return name or None


def project_imports(path: Path) -> list[tuple[str, int, bool, bool]]:
    """(project module, line, inside a function, marked ``# lazy:``) for every import in ``path``: also inside
    functions and under ``if TYPE_CHECKING`` (never run, yet a type named there ties the two modules all the same)."""
    return imports_in(path.read_text(), module_name(path), path.name == "__init__.py")


def imports_in(source: str, name: str, is_package: bool) -> list[tuple[str, int, bool, bool]]:
    lines = source.splitlines()
    package = name.split(".") if is_package else name.split(".")[:-1]
    found = []

    def visit(node, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                marked = any(LAZY.search(line) for line in lines[child.lineno - 1:child.end_lineno])
                names = []
                if isinstance(child, ast.Import):
                    names = [alias.name for alias in child.names]
                else:
                    base = package[:len(package) - child.level + 1] if child.level else []
                    module = ".".join(base + ([child.module] if child.module else []))
                    names = [f"{module}.{alias.name}" for alias in child.names]  # a name may be a module
                for imported in names:
                    target = own_module(imported)
                    if target and target != name:
                        found.append((target, child.lineno, in_function, marked))
            visit(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda))

    visit(ast.parse(source), False)
    return found


GRAPH = {module: project_imports(path) for module, path in PROJECT.items()}


def test_every_module_has_a_layer():
    assert all(top(module) in LAYERS for module in PROJECT)
    assert layer("ops.admin") == layer("web.views") > layer("api.views") > layer("workers.tasks")
    assert layer("api.webhooks") > layer("hooks.services") > layer("workers.tasks")
    assert layer("workers.tasks") > layer("play.claimed") > layer("tournaments.services.matches")
    assert layer("tournaments.models") > layer("ratings.models") > layer("runner.match") > layer("engines.tafl")


def test_the_graph_sees_every_kind_of_import():
    ref = {target: (inside, marked) for target, _, inside, marked in GRAPH["tournaments.referee"]}
    assert ref["runner.bots"] == (False, False)  # at the top
    assert ref["runner.match"][0]  # inside a function
    assert "runner.bots" in {target for target, *_ in GRAPH["runner.sandbox.base"]}  # from ..bots
    typed = imports_in("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .models import Bot\n",
                       "tournaments.referee", False)
    assert [target for target, *_ in typed] == ["tournaments.models"]  # counted though it never runs
    assert "runner.bots" in {target for target, *_ in GRAPH["runner.sandbox.base"]}  # from ..bots


@pytest.mark.parametrize("module", sorted(PROJECT))
def test_imports_point_down(module):
    upward = [f"line {line}: {target} (layer {layer(target)})" for target, line, _, _ in GRAPH[module]
              if layer(target) > layer(module) ]
    assert upward == [], f"{module} (layer {layer(module)}) imports a layer above it"


@pytest.mark.parametrize("module", sorted(PROJECT))
def test_no_import_sideways(module):
    """Packages on one layer (the site and the operators' side) know nothing of each other."""
    sideways = [f"line {line}: {target}" for target, line, _, _ in GRAPH[module]
                if layer(target) == layer(module) and top(target) != top(module)]
    assert sideways == [], f"{module} imports another package of its own layer"


@pytest.mark.parametrize("module", sorted(PROJECT))
def test_an_import_in_a_function_says_why(module):
    hidden = [f"line {line}: {target}" for target, line, inside, marked in GRAPH[module] if inside and not marked]
    assert hidden == [], f"{module}: an import in a function body needs '# lazy: <reason>' on its line"


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, iterative)."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = counter[0]
                    counter[0] += 1
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_between_modules():
    graph = {module: {target for target, *_ in imported} for module, imported in GRAPH.items()}
    assert cycles(graph) == []
