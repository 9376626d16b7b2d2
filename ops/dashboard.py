"""The operator's dashboard: what is queued, running and failing, and which workers are alive."""

from __future__ import annotations

from datetime import UTC, timedelta

from django.contrib import admin
from django.contrib.admin.views.decorators import staff_member_required
from django.db.models import Count, Max, Min, Q
from django.db.models.functions import TruncHour
from django.shortcuts import render
from django.utils import timezone

from engines.core import Termination
from knobs import arena
from tournaments.models import BotVersion, Game, Match, Worker
from tournaments.services.match_rules import WORKER_ALIVE, alive_since, beating_workers

RECENT_LIMIT = 20
DAY = timedelta(hours=24)
# Ends the runner imposes that are somebody's failure; a resignation or the ply cap is a normal end.
FAILURE_REASONS = sorted(t.value for t in Termination if t.is_failure)


def match_counts() -> dict[str, int]:
    counts = dict(Match.objects.values_list("status").annotate(n=Count("id")).order_by())
    return {status: counts.get(status, 0) for status in Match.Status.values}


def recent_matches(status: str, limit: int = RECENT_LIMIT, oldest_first: bool = False) -> list[Match]:
    order = ("created_at", "id") if oldest_first else ("-created_at", "-id")
    return list(
        Match.objects.filter(status=status)
        .select_related("version_a__bot", "version_b__bot", "tournament")
        .order_by(*order)[:limit]
    )


def queue_by_priority(now=None) -> list[dict]:
    """What waits, by priority as workers take it (smoke tests of new versions first): how many, and
    how long the oldest has waited."""
    now = now or timezone.now()
    smoke = BotVersion.objects.filter(status=BotVersion.Status.PENDING).aggregate(
        count=Count("id"), oldest=Min("uploaded_at"))
    rows = [{"label": "smoke test of a new version", **smoke}]
    queued = {row["priority"]: row for row in Match.objects.filter(status=Match.Status.QUEUED)
                  .values("priority").annotate(count=Count("id"), oldest=Min("created_at")).order_by()}
    for priority in sorted(Match.Priority, reverse=True):
        rows.append({"label": priority.label, "count": 0, "oldest": None, **queued.get(priority.value, {})})
    for row in rows:
        row["waited"] = now - row["oldest"] if row["oldest"] else None
    return rows


def queue_warning(queue: list[dict]) -> str:
    """A sentence when the longest-waiting work is older than the threshold, else ''."""
    limit = timedelta(seconds=arena.QUEUE_WARNING_SECONDS)
    late = [row for row in queue if row["waited"] and row["waited"] > limit]
    if not late:
        return ""
    worst = max(late, key=lambda row: row["waited"])
    return (f"The oldest queued {worst['label']} has waited {int(worst['waited'].total_seconds() // 60)} min, "
            f"longer than {int(limit.total_seconds() // 60)} min: too few workers, workers stuck, or work starved.")


def match_failures_by_reason(now=None) -> list[dict]:
    """Failed matches of the last 24 hours, grouped by the reason the runner gave."""
    since = (now or timezone.now()) - DAY
    return list(
        Match.objects.filter(status=Match.Status.FAILED)
        .filter(Q(finished_at__gte=since) | Q(finished_at__isnull=True, created_at__gte=since))
        .values("failure_reason").annotate(count=Count("id")).order_by("-count", "failure_reason")
    )


def game_failures_by_reason(now=None) -> list[dict]:
    """Games of the last 24 hours ended by a failure (timeout, crash, illegal move, void, ...), by reason."""
    since = (now or timezone.now()) - DAY
    return list(
        Game.objects.filter(created_at__gte=since, reason__in=FAILURE_REASONS)
        .values("reason").annotate(count=Count("id")).order_by("-count", "reason")
    )


def games_per_hour(now=None) -> list[dict]:
    """Games stored per hour over the last 24 hours: one row per hour with games, one per run of idle hours
    ("no games 03:00–07:00"), so an idle day is one line, not 24 zeros. Each row: ``hour`` (its start),
    ``until`` (its end), ``count`` and the ``label`` the page shows (hours in UTC)."""
    now = now or timezone.now()
    start = (now - DAY).replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    counts = {
        row["hour"]: row["count"]
        for row in Game.objects.filter(created_at__gte=start)
        .annotate(hour=TruncHour("created_at")).values("hour").annotate(count=Count("id")).order_by()
    }
    rows: list[dict] = []
    for hour in (start + timedelta(hours=i) for i in range(24)):
        count, until = counts.get(hour, 0), hour + timedelta(hours=1)
        if count == 0 and rows and rows[-1]["count"] == 0:
            rows[-1]["until"] = until  # the idle run goes on
        else:
            rows.append({"hour": hour, "until": until, "count": count})
    for row in rows:
        hour = row["hour"].astimezone(UTC)
        row["label"] = (f"{hour:%Y-%m-%d %H:00}" if row["count"] else
                        f"no games {hour:%Y-%m-%d %H:00}–{row['until'].astimezone(UTC):%H:00}")
    return rows


def workers_seen(now=None) -> list[dict]:
    """Workers that asked for work or beat on a match lately, with what they hold now and whether their bots
    are kept apart (a worker that cannot isolate them plays unrated matches only, and says why)."""
    since = alive_since(now)
    beats = {row["worker_id"]: row for row in beating_workers(now).values("worker_id")
             .annotate(last_heartbeat=Max("heartbeat_at"), running=Count("id", filter=Q(status=Match.Status.RUNNING)),
                       matches=Count("id"))}
    known = {worker.worker_id: worker for worker in
             Worker.objects.filter(Q(seen_at__gte=since) | Q(worker_id__in=list(beats)))}
    rows = []
    for worker_id in beats.keys() | known.keys():
        beat, worker = beats.get(worker_id, {}), known.get(worker_id)
        rows.append({"worker_id": worker_id, "last_heartbeat": beat.get("last_heartbeat"),
                     "running": beat.get("running", 0), "matches": beat.get("matches", 0),
                     "seen_at": worker.seen_at if worker else None,
                     "isolation_problem": worker.isolation_problem if worker else "",
                     "plays_rated": worker.plays_rated if worker else None})
    latest = [max(t for t in (row["last_heartbeat"], row["seen_at"]) if t) for row in rows]
    return [row for _, row in sorted(zip(latest, rows), key=lambda pair: pair[0], reverse=True)]


def dashboard_context(now=None) -> dict:
    now = now or timezone.now()
    per_hour = games_per_hour(now)
    queue = queue_by_priority(now)
    return {
        "counts": match_counts(),
        "queue": queue,
        "queue_warning": queue_warning(queue),
        "queued": recent_matches(Match.Status.QUEUED, oldest_first=True),
        "running": recent_matches(Match.Status.RUNNING),
        "failed": recent_matches(Match.Status.FAILED),
        "match_failures": match_failures_by_reason(now),
        "game_failures": game_failures_by_reason(now),
        "games_per_hour": per_hour,
        "games_per_hour_max": max([row["count"] for row in per_hour] + [1]),
        "workers": workers_seen(now),
        "worker_window_minutes": int(WORKER_ALIVE.total_seconds() // 60),
        "now": now,
    }


@staff_member_required
def dashboard_view(request):
    context = {**admin.site.each_context(request), "title": "Arena dashboard", **dashboard_context()}
    return render(request, "admin/arena/dashboard.html", context)
