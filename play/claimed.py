"""A claimed match, from its claim to its report: the one home of that path."""

from __future__ import annotations

import logging
import time

from django.core.exceptions import ValidationError
from django.db import InterfaceError, OperationalError, connection

from knobs import arena
from runner import stopping
from tournaments.referee import InfrastructureError, held_bots, open_sandbox
from tournaments.services import matches as match_services

from .lease import Heartbeat, LeaseLost, deadline
from .limits import heartbeat_seconds, match_time_limits
from .referee import play_game

log = logging.getLogger("play.claimed")

FINISHED, REQUEUED, LEASE_LOST, REFUSED = "finished", "requeued", "lease-lost", "report-refused"


def play_match(match_id: int, token, worker_id: str) -> str:
    """Play match ``match_id``, claimed under lease ``token``, within its own time limits; returns what
    happened (one of the words above)."""
    plan = match_services.begin(match_id, token)
    if plan is None:
        log.warning("match %s: not running under this lease; nothing played", match_id)
        return LEASE_LOST
    limits = match_time_limits(plan.game, plan.time_control, plan.games_per_match)
    log.info("match %s: claimed by %s", match_id, worker_id)
    with Heartbeat(match_id, token, heartbeat_seconds(), limits.hard) as beat:
        try:
            with deadline(limits.soft):
                records = play_games(plan, beat)
        except LeaseLost as error:
            log.warning("match %s: %s; nothing reported", match_id, error)
            return LEASE_LOST
        except InfrastructureError as error:
            return requeue(match_id, token, f"infrastructure: {error}")
        except stopping.Stopped:  # not the match's fault: the attempt is given back
            return requeue(match_id, token, "the worker stopped while playing it", counted=False)
        except BaseException as error:  # SoftTimeLimitExceeded, a runner bug, a signal: never scored
            outcome = requeue(match_id, token, f"runner error: {error!r}"[:500])
            if not isinstance(error, Exception):
                raise
            log.exception("match %s: the runner failed", match_id)
            return outcome
    if beat.lost.is_set():
        log.warning("match %s: the lease was lost while playing; the report will be refused", match_id)
    return report(match_id, token, records)


def play_games(plan: match_services.MatchPlan, beat: Heartbeat) -> list[dict]:
    """Play every game of the match through the sandbox; the runner's records come back.

    Both trees are held in the bot cache for the whole match (no other worker's eviction takes them). The lease
    is the heartbeat thread's: a beat refused (the match requeued or cancelled meanwhile) stops the match before
    its next game with ``LeaseLost``. ``InfrastructureError`` when the sandbox fails (the caller requeues;
    nothing is scored), ``runner.stopping.Stopped`` when the worker is stopping (likewise, the attempt not
    counted).
    """
    with held_bots(plan.version_a, plan.version_b) as bots:
        sandbox = open_sandbox()
        records = []
        for number in range(1, plan.games_per_match + 1):
            stopping.check()
            if beat.lost.is_set():
                raise LeaseLost(f"match {plan.match_id} lost its lease before game {number}")
            white, black = match_services.colours(plan, number)
            records.append(play_game(plan, number, bots[white], bots[black], sandbox))
    return records


def requeue(match_id: int, lease_token, reason: str, counted: bool = True) -> str:
    if match_services.requeue_match(match_id, lease_token, reason=reason, counted=counted):
        log.warning("match %s: requeued (%s)", match_id, reason)  # its wake-up: the MatchRequeued event
        return REQUEUED
    log.warning("match %s: could not requeue (%s): the lease is no longer ours", match_id, reason)
    return LEASE_LOST


def finish(match_id: int, lease_token, records) -> match_services.Report:
    """``finish_match``, tried again while the database cannot be reached, for as long as a lease lasts:
    the games are played, and nobody can requeue the match meanwhile. Should the lease run out after
    all, the scavenger requeues it and the report is refused; a report whose commit went through
    but whose answer was lost is refused too (the match is finished): never counted twice."""
    until = time.monotonic() + arena.MATCH_LEASE_SECONDS
    while True:
        try:
            return match_services.finish_match(match_id, lease_token, records)
        except (OperationalError, InterfaceError) as error:
            if time.monotonic() > until:
                raise
            log.warning("match %s: the database is unreachable (%s); reporting again", match_id,
                        str(error).splitlines()[0])
            connection.close()  # a broken connection is not reused; the next try opens one
            time.sleep(heartbeat_seconds())


def report(match_id: int, lease_token, records) -> str:
    """Hand the records to ``finish_match``; only the current lease's report counts, once."""
    try:
        report = finish(match_id, lease_token, records)
    except ValidationError as error:
        return requeue(match_id, lease_token, f"bad records from the runner: {error}"[:500])
    if report is match_services.Report.REQUEUED:
        log.warning("match %s: void (both bots failed before move 1), requeued unscored", match_id)
        return REQUEUED
    if report is match_services.Report.REFUSED:
        log.warning("match %s: report refused (stale lease or duplicate report), nothing changed", match_id)
        return REFUSED
    log.info("match %s: finished", match_id)
    return FINISHED
