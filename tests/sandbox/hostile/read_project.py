"""Read the project tree and the test's secret file by their host paths."""
from _bgtp import TARGETS, attempt, read, resign, until_go

until_go()
for key in ("project", "project_file", "secret_file", "shared"):
    if key in TARGETS:
        attempt(f"read-{key}", read(TARGETS[key]))
resign()
