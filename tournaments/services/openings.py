"""Opening suites: made from the referee and stored with its ruleset, checked where a match takes one, and dealt
to a match's colour-swapped pairs (docs/openings.md)."""

from __future__ import annotations

import unicodedata
from collections import Counter

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F

from engines import GAME_IDS, get_game
from engines.openings import MAX_COUNT, MAX_PLIES, make_openings

from ..models import Opening, OpeningSuite

SEED_RANGE = (-(2**63), 2**63 - 1)  # the column is a BigIntegerField
NAME_LENGTH = OpeningSuite._meta.get_field("name").max_length
# Unicode's control, format (direction marks, zero widths), surrogate, private and unassigned characters, and the
# line and paragraph separators.
UNPRINTABLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a suite, or None. Its page's address holds the name as one path segment
    (/openings/<game>/<name>/): no slash, no name of dots only (a browser drops the step), nothing unprintable
    (PostgreSQL refuses a NUL; a newline or a direction mark hides what the name says)."""
    if not 1 <= len(name) <= NAME_LENGTH or name != name.strip():
        return f"a suite needs a name of 1 to {NAME_LENGTH} characters, no space at either end"
    if "/" in name or "\\" in name:
        return "a suite's name has no slash (it is one step of its page's address)"
    if not name.strip("."):
        return "a suite's name is more than dots (. and .. are steps of an address)"
    unprintable = [c for c in name if unicodedata.category(c) in UNPRINTABLE]
    if unprintable:
        return f"a suite's name has no control or invisible character, got {unprintable[0]!r}"
    return None


def _whole(value, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValidationError({field: [f"must be a whole number from {low} to {high}, got {value!r}"]})
    return value


def create_suite(game: str, *, name: str, count: int, plies: int, seed: int, ladder: bool = False) -> OpeningSuite:
    """Make ``count`` openings of ``game`` ``plies`` random legal actions deep from ``seed`` and store them with the
    referee's current ruleset. ``ladder=True`` makes it the suite the ladder plays for ``game`` (the one before,
    if any, stops being it). Bad input is a ValidationError naming the field, and nothing is stored."""
    if game not in GAME_IDS:
        raise ValidationError({"game": [f"unknown game {game!r}; known: {', '.join(GAME_IDS)}"]})
    name = name.strip() if isinstance(name, str) else ""
    problem = name_problem(name)
    if problem is not None:
        raise ValidationError({"name": [problem]})
    count = _whole(count, "count", 1, MAX_COUNT)
    plies = _whole(plies, "plies", 1, MAX_PLIES)
    seed = _whole(seed, "seed", *SEED_RANGE)
    try:
        positions = make_openings(game, count, plies, seed)
    except ValueError as error:  # too few distinct positions that deep
        raise ValidationError({"count": [str(error)]}) from None
    with transaction.atomic():
        if OpeningSuite.objects.filter(game=game, name=name).exists():
            raise ValidationError({"name": [f"{game} already has a suite named {name!r}"]})
        if ladder:  # one ladder suite per game (a constraint): the new one takes over
            OpeningSuite.objects.filter(game=game, ladder=True).update(ladder=False)
        suite = OpeningSuite.objects.create(game=game, ruleset=get_game(game).ruleset, name=name, seed=seed,
                                            plies=plies, ladder=ladder)
        Opening.objects.bulk_create(Opening(suite=suite, number=number, position=position)
                                    for number, position in enumerate(positions, start=1))
    return suite


def is_current(suite: OpeningSuite) -> bool:
    """Its positions were made by the referee that plays now (a new ruleset may read or rule them differently)."""
    return suite.ruleset == get_game(suite.game).ruleset


def check_suite(suite: OpeningSuite | None, game: str, games: int, field: str = "opening_suite") -> None:
    """A suite someone picks for a tournament or a test: ``check_fits``, of the current ruleset, and with an opening
    not retired."""
    if suite is None:
        return
    check_fits(suite, game, games, field)
    if not is_current(suite):
        raise ValidationError({field: [
            f"suite {suite} was made under ruleset {suite.ruleset}, the referee now plays {get_game(game).ruleset}"]})
    if not suite.openings.filter(retired_at__isnull=True).exists():
        raise ValidationError({field: [f"every opening of suite {suite} is retired"]})


def check_fits(suite: OpeningSuite | None, game: str, games: int, field: str = "opening_suite") -> None:
    """What every match with a suite keeps: ``game``'s suite, and an even number of games so that every opening is
    played with colours swapped. (A suite that went stale or retired since it was picked is skipped by ``deal``.)"""
    if suite is None:
        return
    if suite.game != game:
        raise ValidationError({field: [f"suite {suite} is for {suite.game}, not {game}"]})
    if games % 2:
        raise ValidationError({field: [f"a suite needs an even number of games (each opening twice, colours "
                                       f"swapped), not {games}"]})


def ladder_suite(game: str) -> OpeningSuite | None:
    """The suite the ladder (and an SPRT by default) plays ``game`` with: marked ``ladder``, of the current ruleset."""
    suite = OpeningSuite.objects.filter(game=game, ladder=True).first()
    return suite if suite is not None and is_current(suite) else None


def deal(match_id: int, suite_id: int | None, games: int) -> tuple[str | None, ...]:
    """The start position of each game of a match (None: the game's initial one). Games 2k-1 and 2k share an
    opening: the suite's active ones, least dealt first (``Opening.dealt``, counted here) so that every opening is
    played about as often; among equally dealt ones the match's id turns the order, so matches dealt at once take
    different ones.

    A suite whose ruleset is no longer the referee's, or whose openings are all retired (since the match was
    queued), is skipped: the games start from the initial position rather than the match failing."""
    if suite_id is None:
        return ()
    suite = OpeningSuite.objects.filter(pk=suite_id).first()
    if suite is None or not is_current(suite):
        return ()
    openings = list(Opening.objects.filter(suite_id=suite_id, retired_at__isnull=True).order_by("number")
                    .values_list("pk", "position", "dealt"))
    if not openings:
        return ()
    pairs = (games + 1) // 2
    turned = sorted(range(len(openings)), key=lambda i: (openings[i][2], (i - match_id * pairs) % len(openings)))
    chosen = [openings[turned[pair % len(openings)]] for pair in range(pairs)]
    starts = [chosen[(number - 1) // 2] for number in range(1, games + 1)]
    for opening_id, count in Counter(opening_id for opening_id, _, _ in starts).items():  # one a pair's opening
        Opening.objects.filter(pk=opening_id).update(dealt=F("dealt") + count)
    return tuple(position for _, position, _ in starts)


def openings_by_position(suite_id: int | None) -> dict[str, int]:
    """The suite's openings' ids by their position text: which opening a stored game started from."""
    if suite_id is None:
        return {}
    return dict(Opening.objects.filter(suite_id=suite_id).values_list("position", "pk"))
