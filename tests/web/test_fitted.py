"""Issue 21: a fitted status ("above", ...) says what it means beside it, not only on hover."""

from __future__ import annotations

from html import escape

import pytest
from django.template.loader import render_to_string

from ratings.fit import BRIEF, STATUSES
from ratings.models import FittedRating


@pytest.mark.parametrize("status", sorted(set(STATUSES) - {"rated"}))
def test_a_status_without_a_rating_is_explained_inline(status):
    html = render_to_string("web/_fitted.html", {"fitted": FittedRating(status=status, elo=None)})
    assert f">{status}</abbr> <small class=\"muted\">{BRIEF[status]}</small>" in html
    assert f'title="{escape(STATUSES[status])}"' in html  # and in full on hover


def test_an_unsettled_rating_shows_its_width():
    html = render_to_string("web/_fitted.html", {"fitted": FittedRating(status="rated", elo=1500.0, margin=1200.0)})
    assert "unsettled</abbr> <small class=\"muted\">± 1200</small>" in html
