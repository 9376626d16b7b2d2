"""The periodic fit of every game's ratings (beat runs it every ARENA["RATING_FIT_SECONDS"])."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="ratings.fit", ignore_result=True)
def fit(*extra, **unexpected) -> int:
    """Refit every game; the fit reads only the database, so any arguments a message carries are ignored."""
    from .services import fit_ratings

    return sum(row.games for row in fit_ratings())
