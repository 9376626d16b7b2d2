"""What ships: the image copies every package of the project, and the wheel holds them with the templates,
static files and reference bots they read at run time (the image once lacked the site's package)."""

from __future__ import annotations

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
                 "ops/templates/admin/arena/dashboard.html"):
        assert path in names, path
