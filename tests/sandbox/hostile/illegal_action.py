"""Play an action that is not in the legal list."""
from _bgtp import say, until_go

until_go()
say("move Z9-Z10")
import sys  # noqa: E402

for line in sys.stdin:
    if line.split()[:1] == ["quit"]:
        break
