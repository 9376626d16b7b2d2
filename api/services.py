"""Writes the API and the admin need on top of the apps' services: registration, tokens, match
requests by players, and the operator's requeue. Validation lives here, not in views."""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth import authenticate, get_user_model, password_validation
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from rest_framework.exceptions import Throttled

from knobs import arena
from tournaments.models import BotVersion, Match
from tournaments.selectors import is_insider, may_see_bot, opening_suite
from tournaments.services.match_rules import queue_again
from tournaments.services.matches import check_games_per_match, check_time_control, create_match, requeue_match
from tournaments.services.players import api_token, create_player
from tournaments.services.uploads import set_version_disabled
from tournaments.services.worker_time import check_budget, expected_match_seconds
from workers.dispatching import send_smoke_test

from .throttles import lockout_message

log = logging.getLogger(__name__)


def register_player(username: str, password: str, email: str = ""):
    """A new player with a usable password that passes the site's password validators."""
    User = get_user_model()
    try:
        password_validation.validate_password(password, User(username=username, email=email))
    except ValidationError as exc:
        raise ValidationError({"password": exc.messages}) from None
    return create_player(username=username, password=password, email=email)


def obtain_token(request, username: str, password: str) -> tuple[str, object]:
    """The player's API token for the right user name and password.

    ``request`` lets the login lockout (django-axes) count this attempt per (account, client address) and per
    address; once either is locked, even the right password is refused from that address with a 429 until the
    lockout ends.
    """
    user = authenticate(request, username=username, password=password)
    if getattr(request, "axes_locked_out", False):
        raise Throttled(wait=settings.AXES_COOLOFF_TIME.total_seconds(), detail=lockout_message())
    if user is None or not user.is_active:
        raise ValidationError({"password": ["no active player has this user name and password"]})
    return api_token(user), user


def _version_for(user, version_id: int, field: str, *, must_own: bool) -> BotVersion:
    version = BotVersion.objects.select_related("bot").filter(pk=version_id).first()
    visible = version is not None and (
        is_insider(user, version.bot.owner_id) if must_own else may_see_bot(user, version.bot))
    if not visible:
        raise ValidationError({field: [f"no bot version {version_id} that you may use here"]})
    return version


UNRATED_CHALLENGE = ("a match asked for here is always unrated: rated games come only from the ranked ladder and "
                     "from official tournaments, which staff mark")


@transaction.atomic
def request_match(user, version_a_id: int, version_b_id: int, *, rated: bool = False,
                  games: int | None = None, time_control: str | None = None) -> Match:
    """A player challenges: their own version A against any public version B, unrated, within the bounds on
    time controls and games, and within their cap of queued challenges (staff have none)."""
    if rated:
        raise ValidationError({"rated": [UNRATED_CHALLENGE]})
    version_a = _version_for(user, version_a_id, "version_a", must_own=True)
    version_b = _version_for(user, version_b_id, "version_b", must_own=False)
    if not user.is_staff:
        _check_queued_cap(user)
    time_control = check_time_control(time_control or arena.DEFAULT_TIME_CONTROL)
    games = check_games_per_match(arena.DEFAULT_GAMES_PER_MATCH if games is None else games)
    check_budget(user, expected_match_seconds(version_a.bot.game, time_control, games), "this challenge")
    return create_match(version_a, version_b, rated=False, games=games, time_control=time_control)


def _check_queued_cap(user) -> None:
    """Challenges whose version A is one of the player's bots, still waiting or being played."""
    get_user_model().objects.select_for_update().get(pk=user.pk)  # two requests at once cannot both pass
    top = arena.MAX_QUEUED_MATCHES_PER_PLAYER
    queued = Match.objects.filter(tournament__isnull=True, rated=False, version_a__bot__owner=user,
                                  status__in=[Match.Status.QUEUED, Match.Status.RUNNING]).count()
    if queued >= top:
        raise ValidationError({"detail": [
            f"you already have {queued} matches queued or playing, the most allowed ({top}); wait for them to finish"]})


def requeue_by_operator(match: Match) -> Match:
    """Operator's requeue: a running match loses its lease; a failed or cancelled one gets fresh attempts."""
    if match.status == Match.Status.RUNNING:
        if not requeue_match(match.pk, reason="requeued by an operator"):
            raise ValidationError({"status": [f"match {match.pk} is no longer running"]})
    elif match.status in (Match.Status.FAILED, Match.Status.CANCELLED):
        updated = queue_again(Q(pk=match.pk, status=match.status),
                              f"requeued by an operator at {timezone.now():%Y-%m-%d %H:%M}", fresh_attempts=True)
        if not updated:
            raise ValidationError({"status": [f"match {match.pk} changed meanwhile; try again"]})
    else:
        raise ValidationError({"status": [f"match {match.pk} is {match.status}; only running, failed or "
                                          "cancelled matches can be requeued"]})
    match.refresh_from_db()
    log.info("match %s requeued by an operator", match.pk)
    return match


def disable_version(version: BotVersion) -> BotVersion:
    return set_version_disabled(version, True)


def enable_version(version: BotVersion) -> BotVersion:
    return set_version_disabled(version, False)


def entrant_version(user, version_id: int) -> BotVersion:
    """The version an organiser enters: their own, or any public bot's (``add_entrant`` then asks for its
    owner's consent)."""
    return _version_for(user, version_id, "version", must_own=False)


def champion_version(user, version_id: int | None) -> BotVersion | None:
    """The version an organiser names a gauntlet's champion: one they could enter (``entrant_version``)."""
    return None if version_id is None else _version_for(user, version_id, "champion", must_own=False)


def opening_suite_for(suite_id: int | None):
    """The opening suite an organiser picks by id (None: none picked); the services then check its game and
    ruleset, naming the same field."""
    if suite_id is None:
        return None
    suite = opening_suite(suite_id)
    if suite is None:
        raise ValidationError({"opening_suite": [f"no opening suite {suite_id}"]})
    return suite


def after_upload(version: BotVersion) -> None:
    """Wake a worker for the smoke test once the upload is committed."""
    transaction.on_commit(lambda: _send_smoke_test(version.pk))


def _send_smoke_test(version_id: int) -> None:
    try:
        send_smoke_test()
    except Exception as error:  # noqa: BLE001 - the dispatcher re-sends tests of versions left pending
        log.warning("smoke test of version %s not sent now (%s); the dispatcher will retry", version_id, error)
