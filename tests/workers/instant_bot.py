"""A trusted test bot that answers at once: random legal actions, then resigns at a ply chosen from the seed.

The resignation ply differs per game and side, so results vary and ratings move; DELAY (seconds per
action) is rewritten by the harness to make matches long enough to be killed in the middle.
"""

import random
import sys
import time

DELAY = 0.0

legal, resign_at, rng = [], 10**9, random.Random(0)
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "bgtp":
        print("bgtp 1 name=instant", flush=True)
    elif words[0] == "newgame":
        fields = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        rng = random.Random(f"{fields.get('seed')}-{fields.get('side')}")
        resign_at = rng.randrange(2, 24)
        print("ready", flush=True)
    elif words[0] == "legal":
        legal = words[1:]
    elif words[0] == "go":
        fields = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        if DELAY:
            time.sleep(DELAY)
        if int(fields.get("ply", 0)) >= resign_at:
            print("resign", flush=True)
        else:
            print("move", rng.choice(legal), flush=True)
    elif words[0] == "quit":
        break
