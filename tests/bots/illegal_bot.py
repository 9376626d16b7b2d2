import sys

for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "bgtp":
        print("bgtp 1 name=illegal", flush=True)
    elif words[0] == "newgame":
        print("ready", flush=True)
    elif words[0] == "go":
        print("move Z9-Z10", flush=True)
    elif words[0] == "quit":
        break
