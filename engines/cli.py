"""``python -m engines``: the referee on the command line (docs/rules/README.md)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from .core import RefereeError
from .record import make_record
from .registry import GAME_IDS, get_game


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, like every other bad input
        raise UsageError(f"{self.prog}: {message}")


def _position(args):
    game = get_game(args.game)
    settings = _settings(args.setting)
    if args.position is None:
        return game.initial(settings)
    return game.parse(args.position, settings)


def _settings(pairs: list[str] | None) -> dict:
    """``--set name=value`` pairs; values are JSON (true, 3, "x") or plain strings."""
    settings = {}
    for pair in pairs or ():
        name, sep, raw = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"--set expects NAME=VALUE, got {pair!r}")
        try:
            settings[name] = json.loads(raw)
        except json.JSONDecodeError:
            settings[name] = raw
    return settings


def cmd_perft(args) -> None:
    if args.depth < 0:
        raise UsageError(f"depth must be 0 or more, got {args.depth}")
    position = _position(args)
    if args.divide:
        divide = position.divide(args.depth) if args.depth > 0 else {}
        for action, count in sorted(divide.items()):
            print(action, count)
        print(sum(divide.values()) if args.depth > 0 else 1)
    else:
        print(position.perft(args.depth))


def cmd_legal(args) -> None:
    for action in _position(args).legal_moves():  # already sorted (Position.legal_moves)
        print(action)


def cmd_play(args) -> None:
    position = _position(args)
    for action in args.actions:
        position = position.play(action)
    outcome = position.outcome()
    print(position.text())
    print(outcome if outcome else "ongoing")


def cmd_demo(args) -> None:
    """A game of each kind between two seeded random players, printed as records."""
    import random


    for game_id in args.games or GAME_IDS:
        rng = random.Random(args.seed)
        position = start = get_game(game_id).initial()
        actions = []
        while position.outcome() is None:
            actions.append(rng.choice(position.legal_moves()))
            position = position.play(actions[-1])
        record = make_record(start, actions, position.outcome(), final=position, white="random", black="random")
        print(json.dumps(record, separators=(",", ":")) if args.json else _summary(record))


def _summary(record: dict) -> str:
    moves = " ".join(record["actions"][:12]) + (" ..." if record["plies"] > 12 else "")
    return (f"[{record['game']} {record['ruleset']}] random vs random: winner={record['winner']} "
            f"reason={record['reason']} plies={record['plies']}\n  {moves}\n  final: {record['final']}")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="python -m engines", description="The Tabula Arena referee.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    def game_command(name, func, help_text):
        sub = commands.add_parser(name, help=help_text)
        sub.add_argument("game", metavar="GAME", help=f"one of {', '.join(GAME_IDS)}")
        sub.add_argument("--position", metavar="TEXT", help="a position in the book's notation")
        sub.add_argument("--set", dest="setting", action="append", metavar="NAME=VALUE",
                         help="change a rule decision from the book's default (repeatable)")
        sub.set_defaults(func=func)
        return sub

    perft = game_command("perft", cmd_perft, "count leaf positions DEPTH actions deep")
    perft.add_argument("depth", metavar="DEPTH", type=int)
    perft.add_argument("--divide", action="store_true", help="first one line per legal action")
    game_command("legal", cmd_legal, "list every legal action, sorted")
    play = game_command("play", cmd_play, "apply actions, print the position and the outcome")
    play.add_argument("actions", metavar="ACTION", nargs="+")
    demo = commands.add_parser("demo", help="play a game of each kind between two random players")
    demo.add_argument("games", metavar="GAME", nargs="*", help="game ids (default: every game)")
    demo.add_argument("--seed", type=int, default=1)
    demo.add_argument("--json", action="store_true", help="print each game's record as one JSON line")
    demo.set_defaults(func=cmd_demo)
    return parser


HOST_COMMANDS = ("match", "check")  # they run bots, so they live on the host side: python -m runner


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in HOST_COMMANDS:
        print(f"error: {argv[0]} moved out of the bot's library: use python -m runner {argv[0]}", file=sys.stderr)
        return 2
    return run(build_parser(), argv)


def run(parser: argparse.ArgumentParser, argv: list[str] | None) -> int:
    """Parse ``argv`` and run the chosen command: bad input is one line on stderr and exit 2."""
    try:
        args = parser.parse_args(argv)
        return args.func(args) or 0
    except (UsageError, RefereeError) as exc:
        print(f"error: {exc}".replace("\n", " "), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader left (`... | head`): nothing more can be written, and there is nothing to say about it.
        # stdout goes to /dev/null so the interpreter's own flush at exit does not fail again (Python's docs).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
