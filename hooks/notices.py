"""What each domain event tells the owners of the bots it concerns: the event's name, whom it concerns, and the
JSON they get (the same body by webhook and on the feed). Owners only: a reject reason and its stderr are the
owner's business (``tournaments.selectors.is_insider``), and each notice goes to one owner."""

from __future__ import annotations

from ratings.models import VersionTest
from tournaments import events
from tournaments.models import Bot, BotVersion, Match, Tournament, TournamentEntrant

VERSION_READY, VERSION_REJECTED = "version.ready", "version.rejected"
MATCH_FINISHED, SPRT_VERDICT, TOURNAMENT_FINISHED, PING = ("match.finished", "sprt.verdict", "tournament.finished",
                                                           "ping")
EVENT_NAMES = (VERSION_READY, VERSION_REJECTED, MATCH_FINISHED, SPRT_VERDICT, TOURNAMENT_FINISHED, PING)
STDERR_TAIL_LINES = 20


def bot_data(bot: Bot) -> dict:
    return {"id": bot.pk, "name": bot.name, "game": bot.game}


def version_judged(event: events.VersionJudged) -> tuple[str, list[int], dict]:
    version = BotVersion.objects.select_related("bot").get(pk=event.version_id)
    data = {"version": {"id": version.pk, "number": version.number, "status": version.status},
            "bot": bot_data(version.bot)}
    if version.status == BotVersion.Status.REJECTED:
        data["reason"] = version.reject_reason
        data["stderr"] = "\n".join(version.reject_stderr.splitlines()[-STDERR_TAIL_LINES:])
    name = VERSION_READY if version.status == BotVersion.Status.READY else VERSION_REJECTED
    return name, [version.bot.owner_id], data


MATCH_FIELDS = ("game", "status", "rated", "tournament_id", "games_per_match", "score_a", "score_b")
VERSION_FIELDS = ("number", "bot__name", "bot__game", "bot__owner_id")


def match_finished(event: events.MatchFinished) -> tuple[str, list[int], dict]:
    match = (Match.objects.select_related("version_a__bot", "version_b__bot")  # on the worker, after each match:
             .only(*MATCH_FIELDS, *(f"{side}__{field}" for side in ("version_a", "version_b")  # only what is sent
                                    for field in VERSION_FIELDS))
             .get(pk=event.match_id))
    sides = [(match.version_a, match.score_a), (match.version_b, match.score_b)]
    data = {"match": {"id": match.pk, "game": match.game, "status": match.status, "rated": match.rated,
                      "tournament": match.tournament_id, "games": match.games_per_match},
            "bots": [{**bot_data(version.bot), "version": version.number, "score": score}
                     for version, score in sides]}
    return MATCH_FINISHED, sorted({version.bot.owner_id for version, _ in sides}), data


def sprt_verdict(event: events.SprtVerdict) -> tuple[str, list[int], dict]:
    bot = Bot.objects.get(pk=event.bot_id)
    test = VersionTest.objects.select_related("candidate", "baseline").get(pk=event.test_id)
    data = {"test": {"id": test.pk, "state": test.state, "candidate": test.candidate.number,
                     "baseline": test.baseline.number, "wins": test.wins, "draws": test.draws,
                     "losses": test.losses, "llr": test.llr},
            "bot": bot_data(bot)}
    return SPRT_VERDICT, [bot.owner_id], data


def tournament_finished(event: events.TournamentFinished) -> tuple[str, list[int], dict]:
    tournament = Tournament.objects.get(pk=event.tournament_id)
    owners = TournamentEntrant.objects.filter(tournament=tournament).values_list("version__bot__owner", flat=True)
    data = {"tournament": {"id": tournament.pk, "name": tournament.name, "game": tournament.game,
                           "format": tournament.format, "status": tournament.status}}
    return TOURNAMENT_FINISHED, sorted(set(owners)), data


DESCRIBE = {
    events.VersionJudged: version_judged,
    events.MatchFinished: match_finished,
    events.SprtVerdict: sprt_verdict,
    events.TournamentFinished: tournament_finished,
}
