"""The opening suites' pages: a game's suites, and one suite's balance opening by opening (built at each read)."""

from __future__ import annotations

from django.shortcuts import render
from django.views.decorators.http import require_GET

from engines import GAME_IDS
from knobs import arena
from tournaments.openings_balance import suite_balance
from tournaments.selectors import opening_suites
from tournaments.services.openings import name_problem

from .selectors import GAME_NAMES


def _not_found(request, what: str):
    return render(request, "web/404.html", {"what": what}, status=404)


def percent(share: float | None) -> str:
    """``62.5%``; a dash before any game."""
    return "–" if share is None else f"{100 * share:.1f}%"


@require_GET
def game_suites(request, game_id: str):
    if game_id not in GAME_IDS:
        return _not_found(request, "game")
    return render(request, "web/openings.html", {
        "game_id": game_id, "game_name": GAME_NAMES[game_id], "games": GAME_IDS, "game_names": GAME_NAMES,
        "suites": list(opening_suites(game_id))})


@require_GET
def suite(request, game_id: str, name: str):
    # The address is anyone's: a name no suite can have (a NUL, which PostgreSQL refuses to compare) is not looked up.
    known = game_id in GAME_IDS and not name_problem(name)
    found = opening_suites(game_id).filter(name=name).first() if known else None
    if found is None:
        return _not_found(request, "opening suite")
    balance = suite_balance(found)
    rows = [{"row": row, "score": percent(row.played.first_score)} for row in balance.openings]
    return render(request, "web/opening_suite.html", {
        "game_id": game_id, "game_name": GAME_NAMES[game_id], "balance": balance, "rows": rows,
        "score": percent(balance.total.first_score), "draw_rate": percent(balance.total.draw_rate),
        "min_pairs": arena.OPENING_BALANCE_MIN_PAIRS, "low": percent(arena.OPENING_BALANCE_LOW),
        "high": percent(arena.OPENING_BALANCE_HIGH)})
