"""Find a game by its id. Game modules are imported on first use."""

from __future__ import annotations

import importlib

from .core import Game, UnknownGame

_WHERE = {
    "tafl9": ("engines.tafl", "TAFL9"),
    "fidchell-1": ("engines.fidchell", "FIDCHELL_1"),
    "fidchell-2": ("engines.fidchell", "FIDCHELL_2"),
    "shatra": ("engines.shatra", "SHATRA"),
}
GAME_IDS = tuple(_WHERE)


def get_game(game_id: str) -> Game:
    try:
        module, name = _WHERE[game_id]
    except (KeyError, TypeError):
        raise UnknownGame(f"unknown game {game_id!r}; known: {', '.join(GAME_IDS)}") from None
    return getattr(importlib.import_module(module), name)
