"""``python -m runner match|check``: the bot author's tools (``runner.localmatch``).

Bad input is one line on stderr and exit status 2, never a traceback, as with ``python -m engines``.
"""

from __future__ import annotations

from engines.cli import Parser, run

from .localmatch import add_commands


def build_parser() -> Parser:
    parser = Parser(prog="python -m runner", description="Play bots against each other, or check one.")
    add_commands(parser.add_subparsers(dest="command", required=True, parser_class=Parser))
    return parser


def main(argv: list[str] | None = None) -> int:
    return run(build_parser(), argv)
