"""A well-behaved BGTP/1 bot: a random legal action, using the referee library's SDK import check."""

import random
import sys

import engines  # noqa: F401 - the SDK must be importable inside the sandbox

legal = []
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "bgtp":
        print("bgtp 1 name=opponent", flush=True)
    elif words[0] == "newgame":
        print("ready", flush=True)
    elif words[0] == "legal":
        legal = words[1:]
    elif words[0] == "go":
        print("move", random.choice(legal), flush=True)
    elif words[0] == "quit":
        break
