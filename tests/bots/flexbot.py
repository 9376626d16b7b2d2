"""A BGTP/1 test bot whose (mis)behaviour is chosen by its arguments, e.g. ``flexbot.py slow:200 crash-at:3``.

Standard library only, so it runs inside the sandbox without the referee. Modes:
random (default: a random legal action), first (the first legal action), slow:MS (sleep before
each answer), early (answer after ``legal`` without waiting for ``go``),
ponder (also sends a move after its own ``played`` echo), illegal, illegal-once,
crash-at:N (exit 3 on the Nth go), crash-start, resign, error, flood (over 1 MiB of info),
longline (a 2 KiB line), silent (no handshake), no-ready, version:V, noisy (info and unknown lines),
double (a second move after each answer), linger (ignores quit and SIGTERM),
stubborn (ignores quit, dies on SIGTERM), noflush
(never flushes stdout), stderr-flood, nostdin (stops reading stdin after the handshake),
answer-on-gameover (sends a move after gameover).
"""

import os
import random
import signal
import sys
import time

MODES = dict(arg.partition(":")[::2] for arg in sys.argv[1:])
FLUSH = "noflush" not in MODES


def say(line):
    sys.stdout.write(line + "\n")
    if FLUSH:
        sys.stdout.flush()


def answer(legal, gos, rng):
    if "slow" in MODES:
        time.sleep(int(MODES["slow"]) / 1000)
    if "stderr-flood" in MODES:
        sys.stderr.write("x" * 200_000 + "\n")
        sys.stderr.flush()
    if MODES.get("crash-at") == str(gos):
        sys.stderr.write(f"flexbot: crashing on go {gos}\n")
        sys.stderr.flush()
        os._exit(3)
    if "resign" in MODES:
        return say("resign")
    if "error" in MODES:
        return say("error out of memory in search")
    if "flood" in MODES:
        for _ in range(20_000):
            say("info " + "f" * 80)
    if "longline" in MODES:
        say("info " + "L" * 2048)
    if "illegal" in MODES or ("illegal-once" in MODES and gos == 1):
        return say("move Z99-Z98")
    if "noisy" in MODES:
        say("info depth 1 score 0")
        say("hello referee")
        say("")
    action = legal[0] if "first" in MODES else rng.choice(legal)
    say("move " + action.lower() if "lowercase" in MODES else "move " + action)
    if "double" in MODES:
        say("move " + legal[-1])


def main():
    if "crash-start" in MODES:
        sys.stderr.write("flexbot: crash at start\n")
        sys.exit(7)
    if "linger" in MODES:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    rng = random.Random(1)
    legal, gos = [], 0
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        keyword = words[0]
        if keyword == "bgtp":
            if "silent" in MODES:
                continue
            say(f"bgtp {MODES.get('version', '1')} name=flex author=tests")
            if "nostdin" in MODES:
                while True:
                    time.sleep(1)
        elif keyword == "newgame":
            fields = dict(w.partition("=")[::2] for w in words[1:])
            rng.seed(fields.get("seed", "1"))
            side = fields.get("side")
            if "no-ready" not in MODES:
                say("ready")
        elif keyword == "legal":
            legal = words[1:]
            if "early" in MODES:
                say("move " + legal[0])
        elif keyword == "go":
            gos += 1
            if "early" not in MODES:
                answer(legal, gos, rng)
        elif keyword == "played" and "ponder" in MODES and words[1] == side:
            say("move " + legal[0])  # "pondering" on the opponent's time: an answer nobody asked for
        elif keyword == "gameover" and "answer-on-gameover" in MODES:
            say("move " + (legal[0] if legal else "x"))
        elif keyword == "quit":
            if "linger" in MODES or "stubborn" in MODES:
                while True:
                    time.sleep(0.1)
            break


if __name__ == "__main__":
    main()
