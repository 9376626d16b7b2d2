"""``manage.py seed`` creates the demo data once; a second run changes nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from ratings.models import Rating
from tournaments.models import Bot, BotVersion, Match, Opening, OpeningSuite, Tournament, TournamentEntrant

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def snapshot():
    return (
        sorted(get_user_model().objects.values_list("username", "is_superuser")),
        sorted(Bot.objects.values_list("name", "game", "owner__username")),
        sorted(BotVersion.objects.values_list("bot__name", "number", "sha256", "status")),
        sorted(Tournament.objects.values_list("name", "status")),
        TournamentEntrant.objects.count(), Match.objects.count(), Rating.objects.count(),
        sorted(OpeningSuite.objects.values_list("game", "name", "ladder")), Opening.objects.count(),
    )


def seed_args() -> list[str]:
    import shutil

    return [] if shutil.which("bwrap") else ["--trusted-sandbox"]


def test_seed_twice_changes_nothing(capsys, settings):
    from seeds import reference_bots

    # Twelve reference bots start in a row: give each the production deadlines on a loaded machine.
    settings.ARENA = {**settings.ARENA, "SMOKE_TEST_STARTUP_SECONDS": 20, "SMOKE_TEST_MOVE_SECONDS": 20}
    call_command("seed", *seed_args())
    first = capsys.readouterr().out
    assert "admin / admin" in first and "alice" in first
    admin = get_user_model().objects.get(username="admin")
    assert admin.is_superuser and admin.check_password("admin")
    tafl_bots = reference_bots("tafl9")
    assert len(tafl_bots) >= 2
    assert Bot.objects.filter(game="tafl9").count() == len(tafl_bots)
    statuses = BotVersion.objects.filter(bot__game="tafl9").values_list("bot__name", "status", "reject_reason")
    assert {status for _, status, _ in statuses} == {"ready"}, list(statuses)
    demo = Tournament.objects.get(game="tafl9")
    assert demo.status == "running" and demo.matches.filter(status="queued").exists()
    ladder = OpeningSuite.objects.get(game="tafl9", ladder=True)  # the ladder plays the demo suite's openings
    assert ladder.openings.count() == 24 and "opening suite tafl9/demo" in first
    before = snapshot()
    call_command("seed", *seed_args())
    assert "already seeded" in capsys.readouterr().out
    assert snapshot() == before
