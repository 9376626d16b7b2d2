"""Worker time: what a match is expected to cost, what each owner has used lately and has queued, whose turn
it is at the workers, and the budget of queued worker time an owner may hold."""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db.models import DateTimeField, DurationField, ExpressionWrapper, F, Min, Q, Sum, Value
from django.utils import timezone

from engines import get_game
from engines.protocol import TimeControl
from knobs import arena
from knobs.cache import keep, kept

from ..models import BotVersion, Game, Match

LADDER = None  # the ladder's account: its matches are charged to nobody


# An expected game, for the estimate: both bots' start-up, then a typical game's plies, each using its whole
# budget (a searching bot does; a quick bot costs less, which only leaves budget unused). Typical: the median
# length of the game's last stored games, once there are enough of them; before that, EXPECTED_PLIES (the
# reference bots' games last 40-200 plies). The rule books' longest (750-1000) is the worst case
# play.limits uses for time limits, far above what is expected.
EXPECTED_STARTUP_SECONDS = 2.0
EXPECTED_PLIES = 120
TYPICAL_SAMPLE, TYPICAL_MIN_GAMES, TYPICAL_SECONDS = 500, 50, 600


def typical_plies(game_id: str) -> int:
    """The median length of the last ``TYPICAL_SAMPLE`` stored games of ``game_id`` (kept for
    ``TYPICAL_SECONDS``: every queued match asks), or ``EXPECTED_PLIES`` while it has fewer than
    ``TYPICAL_MIN_GAMES``."""
    key = f"arena:typical-plies:{game_id}"
    plies = kept(key)
    if plies is None:
        lengths = sorted(Game.objects.filter(match__game=game_id).order_by("-id")
                         .values_list("plies", flat=True)[:TYPICAL_SAMPLE])
        plies = lengths[len(lengths) // 2] if len(lengths) >= TYPICAL_MIN_GAMES else EXPECTED_PLIES
        keep(key, plies, TYPICAL_SECONDS)
    return plies


def expected_game_seconds(game_id: str, time_control: str) -> float:
    plies = max(1, min(typical_plies(game_id), get_game(game_id).max_plies))
    return EXPECTED_STARTUP_SECONDS + TimeControl.parse(time_control).thinking_seconds(plies)


def expected_match_seconds(game_id: str, time_control: str, games: int) -> float:
    """The expected worker-seconds of a match: its games, one after another, on one worker."""
    return games * expected_game_seconds(game_id, time_control)


def expected_smoke_seconds() -> float:
    """A smoke test: the bot's start (a build included) and one move, each at most its deadline."""
    return float(arena.SMOKE_TEST_STARTUP_SECONDS + arena.SMOKE_TEST_MOVE_SECONDS)


def _seconds(delta) -> float:
    return max(0.0, delta.total_seconds()) if delta is not None else 0.0


# A match's worker time: what it used if it ended (finished or failed) in the window, or so far if it runs.
PLAYED = ExpressionWrapper(F("finished_at") - F("started_at"), output_field=DurationField())
ENDED = (Match.Status.FINISHED, Match.Status.FAILED)


def _ended_since(since) -> Q:
    return Q(status__in=ENDED, finished_at__gte=since, started_at__isnull=False)


def recent_use(now=None, owner_id=None) -> dict:
    """Worker-seconds used in the window by each account (owner id, or ``LADDER``): matches finished or
    failed in it, matches running now, smoke tests judged in it. ``owner_id``: that owner's only."""
    now = now or timezone.now()
    since = now - timedelta(seconds=arena.FAIR_SHARE_WINDOW_SECONDS)
    matches = Match.objects.all() if owner_id is None else Match.objects.filter(charged_to_id=owner_id)
    used: dict = defaultdict(float)
    # One grouped sum over the window's matches (served by match_finished_idx): the database subtracts.
    ended = matches.filter(_ended_since(since)).values_list("charged_to_id").annotate(used=Sum(PLAYED)).order_by()
    for account, delta in ended:
        used[account] += _seconds(delta)
    for account, started in matches.filter(status=Match.Status.RUNNING).values_list("charged_to_id", "started_at"):
        used[account] += _seconds(now - started) if started else 0.0  # one row per busy worker
    _add_smoke_tests(used, since, owner_id)
    return used


def _add_smoke_tests(used: dict, since, owner_id=None) -> None:
    """The smoke tests judged in the window, to their owners' accounts."""
    versions = BotVersion.objects.filter(checked_at__gte=since, smoke_started_at__isnull=False)
    if owner_id is not None:
        versions = versions.filter(bot__owner_id=owner_id)
    for account, started, checked in versions.values_list("bot__owner_id", "smoke_started_at", "checked_at"):
        used[account] += _seconds(checked - started)


# The claim's sum of the window's ended matches grows with them (a fleet playing quick matches ends tens of thousands
# an hour): the settled part of the window, all but its last SETTLING_SECONDS, is summed at most once every
# SETTLED_REUSE_SECONDS and kept in the cache (on Redis, one sum for all the workers); each claim reads only the queue,
# the running matches and the matches ended since. A sum reused for a few seconds still counts the matches that left
# the window meanwhile (at most SETTLED_REUSE_SECONDS of its oldest end); SETTLING_SECONDS covers workers whose clocks
# disagree (a match's finished_at is its worker's clock).
SETTLED_KEY, SETTLING_SECONDS, SETTLED_REUSE_SECONDS = "arena:fair-share:settled", 120, 5


def _settled_use(now) -> tuple:
    """(until, {account: worker-seconds}) of the matches that ended in the window before ``until``, which is
    ``SETTLING_SECONDS`` before the moment the sum was taken: from the cache while that is at most
    ``SETTLED_REUSE_SECONDS`` before ``now``."""
    window = arena.FAIR_SHARE_WINDOW_SECONDS
    last = kept(SETTLED_KEY)
    if last is not None and last[1] == window and timedelta(0) <= now - last[0] <= timedelta(
            seconds=SETTLED_REUSE_SECONDS):
        return last[0] - timedelta(seconds=SETTLING_SECONDS), last[2]
    until = now - timedelta(seconds=SETTLING_SECONDS)
    rows = (Match.objects.filter(_ended_since(now - timedelta(seconds=window)), finished_at__lt=until)
            .values_list("charged_to_id").annotate(used=Sum(PLAYED)).order_by())
    used = {account: _seconds(delta) for account, delta in rows}
    keep(SETTLED_KEY, (now, window, used), SETTLED_REUSE_SECONDS)
    return until, used


def _queued_and_used(now) -> tuple[dict, dict]:
    """The accounts with queued matches (each with its oldest queued match's creation) and every account's
    matches' worker time in the window (``recent_use`` without the smoke tests): the settled part of the window
    (``_settled_use``) and one grouped query over the queue, the running matches and the matches ended since
    (the status and finished-at indexes)."""
    since = now - timedelta(seconds=arena.FAIR_SHARE_WINDOW_SECONDS)
    settled_until, settled = _settled_use(now)
    queued, running = Q(status=Match.Status.QUEUED), Q(status=Match.Status.RUNNING)
    ended = _ended_since(max(since, settled_until))
    so_far = ExpressionWrapper(Value(now, output_field=DateTimeField()) - F("started_at"), output_field=DurationField())
    rows = (Match.objects.filter(queued | running | ended).values_list("charged_to_id")
            .annotate(oldest=Min("created_at", filter=queued), ended=Sum(PLAYED, filter=ended),
                      running=Sum(so_far, filter=running & Q(started_at__isnull=False))).order_by())
    oldest, used = {}, defaultdict(float, settled)
    for account, first, ended_for, running_for in rows:
        if first is not None:
            oldest[account] = first
        used[account] += _seconds(ended_for) + _seconds(running_for)
    return oldest, used


def claim_accounts(now=None) -> list:
    """The accounts with queued matches, in the order a free worker should serve them: the one furthest
    below its share first, i.e. the least time used lately for its share (weighted fair queuing over the
    window). The ladder's share is ``LADDER_SHARE``; the owners with queued work split the rest equally.
    So the ladder, when it has work, gets its guaranteed share of a busy arena; an owner who asks for little
    (a light owner's challenge) is below everyone and goes next; owners with long queues converge on equal
    shares. Ties: the ladder, then the owner whose oldest queued match is oldest. One grouped query over the
    queue, the running matches and the last minutes' ended ones (the window's settled part is summed every few
    seconds: ``_settled_use``), and a second for the smoke tests only when several accounts wait."""
    now = now or timezone.now()
    queued, used = _queued_and_used(now)
    if len(queued) <= 1:
        return list(queued)
    _add_smoke_tests(used, now - timedelta(seconds=arena.FAIR_SHARE_WINDOW_SECONDS))
    owners = [account for account in queued if account is not LADDER]
    ladder_share = min(1.0, max(0.0, float(arena.LADDER_SHARE)))
    owner_share = (1.0 - ladder_share) / len(owners) if owners else 0.0

    def behind(account) -> tuple:
        share = ladder_share if account is LADDER else owner_share
        used_for_share = used.get(account, 0.0) / share if share > 0 else float("inf")
        return (used_for_share, account is not LADDER, queued[account], account or 0)

    return sorted(queued, key=behind)


def queued_seconds(owner_id: int) -> float:
    """The expected worker time an owner has waiting: queued matches and smoke tests not yet taken."""
    matches = Match.objects.filter(charged_to_id=owner_id, status=Match.Status.QUEUED).aggregate(
        total=Sum("cost_seconds"))["total"] or 0.0
    smoke = BotVersion.objects.filter(bot__owner_id=owner_id, status=BotVersion.Status.PENDING,
                                      smoke_started_at__isnull=True).count()
    return matches + smoke * expected_smoke_seconds()


def usage(owner_id: int, now=None) -> dict:
    """What an owner's page and the API show: queued and recent worker time, and the budget."""
    return {"queued_seconds": round(queued_seconds(owner_id), 1),
            "recent_seconds": round(recent_use(now, owner_id=owner_id).get(owner_id, 0.0), 1),
            "window_seconds": arena.FAIR_SHARE_WINDOW_SECONDS,
            "budget_seconds": arena.OWNER_QUEUED_SECONDS}


def check_budget(owner, cost: float, what: str) -> None:
    """Refuse a request whose expected worker time would take the owner's queued time past their budget
    (staff have none): a ValidationError under ``budget`` naming the budget, the request's cost and what is
    queued. Call inside the transaction that queues the work: the owner's row is locked, so two requests at
    once cannot both pass."""
    if owner is None:
        return
    owner = get_user_model().objects.select_for_update().get(pk=owner.pk)
    if owner.is_staff:
        return
    budget = arena.OWNER_QUEUED_SECONDS
    queued = queued_seconds(owner.pk)
    if queued + cost > budget:
        raise ValidationError({"budget": [
            f"{what} would queue {_hours(cost)} of expected worker time; you have {_hours(queued)} queued and "
            f"your budget of queued worker time is {_hours(budget)}: wait for your queued work to be played, "
            "or ask for fewer games or a faster time control"]})


def _hours(seconds: float) -> str:
    return f"{seconds:,.0f} worker-seconds ({seconds / 3600:.1f} h)"
