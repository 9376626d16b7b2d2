import random
import sys

legal = []
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "bgtp":
        print("bgtp 1 name=random", flush=True)
    elif words[0] == "newgame":
        print("ready", flush=True)
    elif words[0] == "legal":
        legal = words[1:]
    elif words[0] == "go":
        print("move", random.choice(legal), flush=True)
    elif words[0] == "quit":
        break
