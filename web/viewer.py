"""The replay viewer's context for a page (``web/_replay.html``, drawn by ``web.boards``), or why there is none."""

from __future__ import annotations

from . import boards


def viewer(record: dict, live_url: str | None = None) -> dict:
    """``{"viewer": context}``; a record the referee cannot replay gives ``{"viewer": None, "viewer_error": why}``
    (the page still shows the moves and the result)."""
    try:
        return {"viewer": boards.viewer(record, live_url)}
    except ValueError as error:  # engines.BadRecord and the other referee errors
        return {"viewer": None, "viewer_error": str(error)}
