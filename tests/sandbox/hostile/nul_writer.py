"""NUL and other control bytes on stderr, in an info line and in its (illegal) action."""
import sys

from _bgtp import say, until_go

sys.stderr.write("before\x00after \x1b[31mred\x07\n")
sys.stderr.flush()
until_go()
say("info nul\x00here \x01\x7f")
say("move a1\x00-a2")
for line in sys.stdin:
    if line.split()[:1] == ["quit"]:
        break
