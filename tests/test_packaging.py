"""What ships: the image copies every package of the project, and the wheel holds them with the templates,
static files, reference bots and rule pages they read at run time (the image once lacked the site's package, the
wheel the rule pages: docs/ is no package, so the site reads it through the link web/texts)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOT_SHIPPED = {"tests", "benchmarks", "scripts", "docs", "var", "build"}


def project_packages() -> set[str]:
    return {p.parent.name for p in ROOT.glob("*/__init__.py")} - NOT_SHIPPED


def test_the_image_copies_every_package():
    copied = set(re.findall(r"^COPY (\w+) \1$", (ROOT / "Dockerfile").read_text(), re.MULTILINE))
    assert copied == project_packages() | {"docs"}  # docs: the rule pages and the protocol the site renders


@pytest.mark.slow
def test_the_wheel_holds_every_package_and_the_files_it_reads(tmp_path):
    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    assert {name.rstrip("*") for name in found["include"]} == project_packages()
    # Built from a copy: setuptools writes its build/ beside the sources, and the checkout is not the test's to write.
    source = shutil.copytree(ROOT, tmp_path / "source", ignore=shutil.ignore_patterns(
        ".git", ".venv", "var", "build", "*.egg-info", "__pycache__", ".hypothesis", ".pytest_cache"))
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(source), "-w", str(tmp_path)],
                            capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    [wheel] = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {name.split("/")[0] for name in names if "/" in name and ".dist-info" not in name} == project_packages()
    for path in ("web/templates/web/bot.html", "web/static/web/replay.js", "seeds/bots/tafl9-search/main.py",
                 "ops/templates/admin/arena/dashboard.html", "web/texts/protocol.md",
                 "web/texts/rules/tafl9.md"):
        assert path in names, path
    # The installed package serves the rule pages from its own files, with no source tree in reach.
    installed = tmp_path / "installed"
    zipfile.ZipFile(wheel).extractall(installed)
    shutil.rmtree(source)
    served = subprocess.run([sys.executable, "-c", SERVE_RULES], capture_output=True, text=True, timeout=120,
                            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(installed),
                                               "ARENA_VAR_DIR": str(tmp_path / "var"),
                                               "DJANGO_SETTINGS_MODULE": "config.settings"})
    assert served.returncode == 0, served.stderr[-2000:]
    where, status, page = served.stdout.split("\n", 2)
    assert where == str(installed / "web" / "__init__.py")
    assert status == "200" and "escape square" in page and 'class="board board-tafl9"' in page


SERVE_RULES = """
import django
django.setup()
from django.test import Client
from django.test.utils import setup_test_environment
import web
setup_test_environment()
response = Client().get("/rules/tafl9/")
print(web.__file__)
print(response.status_code)
print(response.content.decode())
"""


def test_the_rule_pages_are_read_through_the_link_to_docs():
    """One source: web/texts is docs/ itself, not a copy that could drift."""
    link = ROOT / "web" / "texts"
    assert link.is_symlink() and link.resolve() == (ROOT / "docs").resolve()
