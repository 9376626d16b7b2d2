import sys

for line in sys.stdin:
    if line.startswith("quit"):
        break
