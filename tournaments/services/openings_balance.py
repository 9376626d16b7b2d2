"""An opening suite's one-sided openings retired (never dealt again), by the balance rule or by an operator."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from knobs import arena

from ..models import Game, Match, Opening, OpeningSuite
from ..openings_balance import OpeningBalance, suite_balance

MANUAL = "retired by an operator"


def is_unbalanced(row: OpeningBalance) -> bool:
    """Enough pairs played (``OPENING_BALANCE_MIN_PAIRS``) and a first-mover score outside the bounds (a score
    exactly at a bound is inside)."""
    score = row.played.first_score
    return (row.played.pair_count >= arena.OPENING_BALANCE_MIN_PAIRS and score is not None
            and not arena.OPENING_BALANCE_LOW <= score <= arena.OPENING_BALANCE_HIGH)


def reason_for(row: OpeningBalance) -> str:
    played = row.played
    return (f"{row.first} (first mover) scored {played.first_score:.1%} in {played.games} games, {played.pair_count} "
            f"pairs; bounds {arena.OPENING_BALANCE_LOW:.0%}-{arena.OPENING_BALANCE_HIGH:.0%}")


def retire_unbalanced(suite: OpeningSuite, numbers=None) -> list[Opening]:
    """Retire every active opening of ``suite`` (only those ``numbers`` if given) the balance rule finds one-sided.
    Idempotent: a retired opening stays as it was retired; returns the ones retired now."""
    now = timezone.now()
    retired = []
    for row in suite_balance(suite, numbers).openings:
        if row.retired or not is_unbalanced(row):
            continue
        reason = reason_for(row)
        # Only while still active: two reactions deciding at once retire it once, with one reason.
        if Opening.objects.filter(pk=row.opening.pk, retired_at__isnull=True).update(
                retired_at=now, retired_reason=reason):
            row.opening.retired_at, row.opening.retired_reason = now, reason
            retired.append(row.opening)
    return retired


def retire_unbalanced_after(match_id: int) -> list[Opening]:
    """The balance rule for the openings a finished match played (only theirs changed)."""
    match = Match.objects.select_related("opening_suite").filter(pk=match_id, status=Match.Status.FINISHED).first()
    if match is None or match.opening_suite is None:
        return []
    numbers = set(Game.objects.filter(match_id=match_id, opening__isnull=False)
                  .values_list("opening__number", flat=True))
    return retire_unbalanced(match.opening_suite, numbers) if numbers else []


@transaction.atomic
def set_opening_retired(opening: Opening, retired: bool, reason: str = MANUAL) -> Opening:
    """An operator retires an opening (dealt no more) or brings it back (dealt again; the balance rule may retire
    it again once a match plays it while it is still one-sided)."""
    opening = Opening.objects.select_for_update().get(pk=opening.pk)
    if retired and opening.retired_at is None:
        opening.retired_at, opening.retired_reason = timezone.now(), reason
    elif not retired:
        opening.retired_at, opening.retired_reason = None, ""
    opening.save(update_fields=["retired_at", "retired_reason"])
    return opening
