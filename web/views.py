"""The site's pages. Thin: a selector reads, a service writes (through a form that only shapes the input),
a template shows. Anything missing, or private to someone else, is the site's own 404 page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from api import exports as api_exports
from api import public, streaming
from api import records as api_records
from api import selectors as api_selectors
from api import services as api_services
from api import throttles as api_throttles
from api.serializers import VersionTestSerializer
from engines import GAME_IDS, get_game
from engines.core import SIDES, Termination, other
from play import live
from ratings import selectors as ratings_selectors
from runner.match import stderr_tail
from tournaments import selectors as app_selectors
from tournaments import services as app_services
from tournaments.gauntlet import gauntlet_table
from tournaments.knockout import bracket as knockout_bracket
from tournaments.knockout import round_name
from tournaments.models import BotVersion, Game, Match, Tournament
from tournaments.services import worker_time
from tournaments.services.matches import colours
from tournaments.swiss.history import table as swiss_table

from . import boards, charts, docs, forms, selectors, starters, streams, webhooks
from .pagecache import for_visitors
from .viewer import viewer


def not_found(request, exception=None, what: str = "page"):
    return render(request, "web/404.html", {"what": what}, status=404)


@for_visitors(public.LIVE_SECONDS, scopes=lambda: [public.HOME])
def home(request):
    return render(request, "web/home.html", selectors.home(request.user))


@require_GET
@for_visitors(public.LIVE_SECONDS, scopes=lambda game_id: [public.leaderboard_scope(game_id)])
def leaderboard(request, game_id: str):
    if game_id not in GAME_IDS:
        return not_found(request, what="game")
    sort = request.GET.get("sort", "rating")
    if sort not in selectors.LEADERBOARD_SORTS:
        sort = "rating"
    board = selectors.leaderboard(game_id, sort, request.GET.get("page"))
    return render(request, "web/leaderboard.html", {
        "game_id": game_id, "game_name": selectors.GAME_NAMES[game_id], "sort": sort, "games": GAME_IDS,
        "game_names": selectors.GAME_NAMES, **board})


@for_visitors(public.LIVE_SECONDS, scopes=lambda bot_id: [public.bot_scope(bot_id)])
def bot(request, bot_id: int):
    found = selectors.bot(request.user, bot_id)
    if found is None:
        return not_found(request, what="bot")
    owner = app_selectors.is_insider(request.user, found.owner_id)
    versions = list(found.versions.all())
    ready = [v for v in versions if v.status == BotVersion.Status.READY]
    form, refused = forms.UploadForm(), None
    sprt_form = forms.SprtForm(choices=ready, initial={"version": ready[0].pk if ready else None},
                               suites=_suites_of(found.game))
    forecast = None
    opponent = _challenged_version(found, ready)
    own_versions = _challenger_versions(request.user, found) if opponent is not None and not owner else []
    challenge_form = forms.ChallengeForm(choices=own_versions)
    # The owner's page is at its query budget (the upload and test forms): their challenge form costs none, the
    # opponent typed as a bot number with the bots already met offered (the page lists them anyway).
    own_challenge_form = forms.OwnChallengeForm(choices=ready) if owner else None
    if request.method == "POST" and request.POST.get("action") == "challenge":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path(), reverse("web:login"))
        challenge_form = _challenge(request, opponent, own_versions)
        if challenge_form is None:
            return redirect("web:bot", bot_id=found.pk)
    elif request.method == "POST" and request.POST.get("action") == "challenge-from" and owner:
        own_challenge_form = _challenge_from(request, found, ready)
        if own_challenge_form is None:
            return redirect("web:bot", bot_id=found.pk)
    elif request.method == "POST":
        if not owner:
            return not_found(request, what="bot")
        action = request.POST.get("action", "upload")
        if action == "sprt":
            sprt_form = _request_sprt(request, found, ready)
        elif action == "sprt-preview":
            sprt_form, forecast = _preview_sprt(request, found, ready)
        elif action == "stop-sprt":
            refused = _stop_sprt(request, found)
            if refused is None:
                return redirect("web:bot", bot_id=found.pk)
            messages.error(request, refused)
        else:
            form = forms.UploadForm(request.POST, request.FILES)
            if not forms.throttled(request, form, "uploads") and form.is_valid() and forms.run_service(
                    form, lambda: _upload(found, form.cleaned_data["file"])):
                messages.success(request, "Uploaded: the smoke test runs now; this page shows its verdict.")
                form = None
        if form is None or sprt_form is None:
            return redirect("web:bot", bot_id=found.pk)
    version_ids = [version.pk for version in versions]
    rating = ratings_selectors.own_rating(found)
    # The bot's board row is the version row marked current: already prefetched with the versions, no query.
    fitted = next((row for version in versions for row in version.fitted_ratings.all() if row.current), None)
    standing = ratings_selectors.standing(fitted)
    shown = [own_challenge_form] if own_challenge_form is not None else []
    return render(request, "web/bot.html", {
        "bot": found, "is_owner": owner, "versions": versions, "rating": rating, "form": form,
        "provisional": rating is not None and standing != "ranked", "fitted": fitted,
        "standing": standing, "standing_text": ratings_selectors.STANDINGS[standing],
        "chart": charts.rating_svg(selectors.rating_points(found)),
        "opponents": app_selectors.opponents(found, request.user),
        "recent": selectors.recent_games(request.user, version_ids),
        "tests": [(VersionTestSerializer(test).data, test)
                  for test in ratings_selectors.version_tests_of(found.pk).select_related("candidate", "baseline")],
        "sprt_form": sprt_form, "sprt_forecast": forecast, "challenge_form": challenge_form, "opponent": opponent,
        "own_challenge_form": own_challenge_form,
        "storage": (app_services.storage_used(found.owner), app_services.storage_quota(found.owner)) if owner else None,
        "game_name": selectors.GAME_NAMES[found.game]},
        status=_refused_status(form, sprt_form, challenge_form, *shown, refused=refused)
        if form.errors or sprt_form.errors or challenge_form.errors or any(f.errors for f in shown) or refused
        else 200)


def _challenged_version(bot, ready):
    """The version a challenge of ``bot`` plays against: its pinned version if ready, else its newest ready one;
    None when it has none (then the page offers no challenge)."""
    pinned = next((v for v in ready if v.pk == bot.pinned_version_id), None)
    return pinned or (ready[0] if ready else None)


def _challenger_versions(user, bot) -> list[BotVersion]:
    """The visitor's own ready versions of the bot's game (not of this bot itself), newest first."""
    if not user.is_authenticated:
        return []
    return list(BotVersion.objects.filter(bot__owner=user, bot__game=bot.game, status=BotVersion.Status.READY)
                .exclude(bot=bot).select_related("bot").order_by("bot__name", "-number"))


def _request_match(user, data: dict, opponent):
    """The API's ``request_match``; its refusal of ``version_a`` (the API's name) goes beside ``version``, of
    ``version_b`` beside ``opponent`` (the owner's form; the visitor's has no such field)."""
    try:
        return api_services.request_match(user, data["version"], opponent.pk, games=data["games_per_match"],
                                          time_control=data["time_control"] or None)
    except ValidationError as error:
        if hasattr(error, "error_dict"):
            for api_name, field in (("version_a", "version"), ("version_b", "opponent")):
                if api_name in error.error_dict:
                    error.error_dict[field] = error.error_dict.pop(api_name)
        raise


def _challenge(request, opponent, own_versions):
    """A visitor challenges the bot: the same service as POST /api/matches/ (its refusals, its ``challenges``
    throttle); the form with its errors, or None when the match is queued."""
    form = forms.ChallengeForm(request.POST, choices=own_versions)
    if forms.throttled(request, form, "challenges"):
        return form
    if opponent is None:
        form.add_error(None, "this bot has no ready version to challenge")
        return form
    if form.is_valid():
        data = form.cleaned_data
        match = forms.run_service(form, lambda: _request_match(request.user, data, opponent))
        if match is not None:
            messages.success(request, f"Challenge queued: match {match.pk}, {match.games_per_match} games at "
                                      f"{match.time_control}.")
            return None
    return form


def _challenge_from(request, bot, ready):
    """The owner challenges another bot from their bot's page: the API's ``request_match`` (its refusals, its
    ``challenges`` throttle); the form with its errors, or None when the match is queued."""
    form = forms.OwnChallengeForm(request.POST, choices=ready)
    if forms.throttled(request, form, "challenges") or not form.is_valid():
        return form
    data = form.cleaned_data
    other = selectors.bot(request.user, data["opponent"])
    target = None if other is None else _challenged_version(
        other, [v for v in other.versions.all() if v.status == BotVersion.Status.READY])
    if target is None:
        form.add_error("opponent", f"bot {data['opponent']} does not exist or has no ready version to play")
        return form
    if target.bot_id == bot.pk:
        form.add_error("opponent", "that is this bot: choose another (an SPRT tests one version against another)")
        return form
    match = forms.run_service(form, lambda: _request_match(request.user, data, target))
    if match is None:
        return form
    messages.success(request, f"Challenge queued: match {match.pk}, {match.games_per_match} games at "
                              f"{match.time_control} against {other.name} v{target.number}.")
    return None


def _refused_status(*forms_shown, refused: str | None = None) -> int:
    """429 when a throttle refused the submission (its error, beside the form, says so), else 400."""
    errors = [refused or ""] + [error for form in forms_shown for error in form.non_field_errors()]
    return 429 if any(error.startswith(api_throttles.REFUSED) for error in errors) else 400


def _suites_of(game_id: str | None):
    return lambda: app_selectors.opening_suites(game_id, current=True)


def _sprt_arguments(form) -> dict:
    data = form.cleaned_data
    return {"version_id": data["version"], "elo0": data["elo0"], "elo1": data["elo1"],
            "elo_model": data["elo_model"] or "logistic", "max_pairs": data["max_pairs"]}


def _request_sprt(request, bot, ready):
    """The owner's SPRT request: the form with its errors, or None when the test started."""
    form = forms.SprtForm(request.POST, choices=ready, suites=_suites_of(bot.game))
    if forms.throttled(request, form, "sprt"):
        return form
    if form.is_valid() and forms.run_service(form, lambda: app_services.request_version_test(
            bot, **_sprt_arguments(form), gate=form.cleaned_data["gate"],
            opening_suite=api_services.opening_suite_for(form.cleaned_data["opening_suite"]))):
        messages.success(request, "SPRT started: its matches are queued.")
        return None
    return form


def _preview_sprt(request, bot, ready):
    """The owner asks how long a test would take before starting it: the form as filled, and the forecast
    (None, with the form's errors, when the request is bad)."""
    form = forms.SprtForm(request.POST, choices=ready, suites=_suites_of(bot.game))
    forecast = form.is_valid() and forms.run_service(
        form, lambda: app_services.forecast_version_test(bot, **_sprt_arguments(form)))
    return form, forecast or None


def _stop_sprt(request, bot) -> str | None:
    """The owner stops a running SPRT of this bot: None when done, else why not."""
    refused = api_throttles.refusal(request, "writes")
    if refused is not None:
        return str(refused.detail)
    test = ratings_selectors.version_test_of(bot.pk, request.POST.get("test", ""))
    if test is None:
        return "this bot has no such SPRT"
    try:
        app_services.stop_version_test(test)
    except ValidationError as error:
        return " ".join(error.messages)
    messages.success(request, f"SPRT {test.pk} stopped.")
    return None


def _upload(bot, file):
    version = app_services.upload_version(bot, file)
    api_services.after_upload(version)  # the smoke test, once the upload is committed
    return version


@login_required
def bot_create(request):
    form = forms.BotForm(request.POST or None)
    if request.method == "POST" and not forms.throttled(request, form, "writes") and form.is_valid():
        created = forms.run_service(form, lambda: app_services.create_bot(request.user, **form.cleaned_data))
        if created is not None:
            messages.success(request, f"{created.name} is yours: upload its first version below.")
            return redirect("web:bot", bot_id=created.pk)
    return render(request, "web/form.html", {"form": form, "title": "New bot", "button": "Create the bot"},
                  status=_refused_status(form) if form.errors else 200)


@for_visitors(public.RECORD_SECONDS)  # a game never changes; its bots' names start a new generation
def game(request, game_id: int):
    found = selectors.game(request.user, game_id)
    if found is None:
        return not_found(request, what="game")
    record = found.record or {}
    actions = record.get("actions") or []
    moves = list(zip(range(1, len(actions) + 1), actions, record.get("times") or [None] * len(actions)))
    return render(request, "web/game.html", {
        "game": found, "match": found.match, "moves": moves, "game_name": selectors.GAME_NAMES[found.match.game],
        "failed_stderr": failed_stderr(found, request.user), **viewer(record)})


FAILURES = frozenset(termination.value for termination in Termination if termination.is_failure)


def failed_stderr(game: Game, user) -> list[tuple[str, str]]:
    """(side, last lines of its stderr) for the side that lost ``game`` by a failure (both of a void game), if the
    reader may see that side's stderr (its owner, staff: ``record_seen_by``); what the bot wrote to explain it."""
    if game.reason not in FAILURES:
        return []
    stderr = app_selectors.record_seen_by(game, user).get("stderr") or {}
    sides = SIDES if game.winner not in SIDES else [other(game.winner)]
    return [(side, stderr_tail(stderr[side])) for side in sides if isinstance(stderr.get(side), str)]


def match(request, match_id: int):
    found = selectors.match(request.user, match_id)
    if found is None:
        return not_found(request, what="match")
    return render(request, "web/match.html", {"match": found, "games": list(found.games.all()),
                                              "game_name": selectors.GAME_NAMES[found.game]})


def match_live(request, match_id: int):
    """The game a running match is playing, updated as it goes: the viewer follows ``match_live_events`` (or polls
    ``match_live_json`` where EventSource fails), and moves on to the match's next game by itself. A match not
    running has its own page, its stored games."""
    found = selectors.match(request.user, match_id)
    if found is None:
        return not_found(request, what="match")
    if found.status != Match.Status.RUNNING:
        return redirect("web:match", match_id=found.pk)
    number = live.current(found.pk) or 1
    record = live.game(found.pk, number) or {"game": found.game, "initial": get_game(found.game).initial().text(),
                                             "actions": []}
    white, black = colours(found, number)  # from the match row: known before the game's first ply
    return render(request, "web/live.html", {
        "match": found, "number": number, "white": white.bot.name, "black": black.bot.name,
        "game_name": selectors.GAME_NAMES[found.game],
        "events_url": reverse("web:match-live-events", args=[found.pk]),
        "poll_url": reverse("web:match-live", args=[found.pk]),
        **viewer(record, reverse("web:match-live-json", args=[found.pk, number]))})


def match_live_events(request, match_id: int):
    """The live page's Server-Sent Events (``web.streams``): a bounded stream the browser resumes from its
    Last-Event-ID; ``?game=&have=`` says where the page starts. Throttled as the polls are (scope ``live``), one
    count per stream."""
    refused = api_throttles.refusal(request, "live")
    if refused is not None:
        return JsonResponse({"detail": str(refused.detail)}, status=429,
                            headers={"Retry-After": str(int(refused.wait or 1))})
    found = api_selectors.matches_visible_to(request.user).filter(pk=match_id).first()
    if found is None:
        return JsonResponse({"detail": "no such match"}, status=404)
    try:
        number, have, over = streams.resume_point(request.headers.get("Last-Event-ID"), request.GET.get("game"),
                                                  request.GET.get("have"), found.games_per_match)
    except streams.BadPlace as error:
        return JsonResponse({"detail": str(error)}, status=400)
    return streaming.open_stream(request, streams.SLOTS, streams.events(found, number, have, over),
                                 say=lambda text: f"{text} (poll instead)")


def match_live_json(request, match_id: int, number: int):
    """What the live viewer polls where EventSource fails: ``web.boards.replay`` of game ``number`` so far, the
    plies after ``?since=``, with the game's number and its bots' names.

    Polls are throttled (scope ``live``): each one of a game in progress replays it through the referee. A
    finished game is replayed once from its stored record and kept (``live.kept_replay``)."""
    refused = api_throttles.refusal(request, "live")
    if refused is not None:
        return JsonResponse({"detail": str(refused.detail)}, status=429,
                            headers={"Retry-After": str(int(refused.wait or 1))})
    since = request.GET.get("since")
    if since is not None and not (since.isdigit() and len(since) < 7):
        return JsonResponse({"detail": "since must be a ply number (0 or more)"}, status=400)
    since = None if since is None else int(since)
    # Only what the poll needs: may the user see the match (and its bots' names), and is the game stored (over)
    # yet. Two small queries, not the match page's (its prefetched games were most of a kept replay's poll).
    match = api_selectors.matches_visible_to(request.user).filter(pk=match_id).first()
    if match is None:
        return JsonResponse({"detail": "no such match"}, status=404)
    found = match.pk
    stored = Game.objects.filter(match_id=found, number=number).values_list("pk", flat=True).first()
    try:
        if stored is not None:
            body = _finished_replay(stored)
            if since is not None:
                body = {**body, "first": since + 1, "plies": body["plies"][since + 1:]}
        else:
            record = live.game(found, number)
            if record is None:
                return JsonResponse({"detail": f"game {number} of match {found} is not being played"},
                                    status=404)
            body = boards.replay(record, since)
    except ValueError as error:
        return JsonResponse({"detail": str(error)}, status=400)
    white, black = colours(match, number)
    return JsonResponse({**body, "number": number, "white": white.bot.name, "black": black.bot.name},
                        headers={"Cache-Control": "no-store"})


def _finished_replay(game_id: int) -> dict:
    body = live.kept_replay(game_id)
    if body is None:
        body = boards.replay(Game.objects.only("record").get(pk=game_id).record)
        live.keep_replay(game_id, body)
    return body


def tournament_list(request):
    return render(request, "web/tournaments.html", {"tournaments": list(app_selectors.tournament_list()[:100]),
                                                    "game_names": selectors.GAME_NAMES})


def tournament(request, tournament_id: int):
    found = selectors.tournament(tournament_id)
    if found is None:
        return not_found(request, what="tournament")
    organiser = request.user.is_authenticated and (request.user.pk == found.organiser_id or request.user.is_staff)
    # A running Swiss takes late entries between rounds, paired from the next one.
    takes_entrants = found.status == "draft" or (found.status == "running" and found.format == Tournament.Format.SWISS)
    choices = selectors.entry_choices(request.user, found) if organiser and takes_entrants else []
    form = forms.EntrantForm(choices=choices)
    if request.method == "POST":
        if not organiser:
            return not_found(request, what="tournament")
        form = _tournament_action(request, found, choices)
        if form is None:
            return redirect("web:tournament", tournament_id=found.pk)
    table = app_selectors.crosstable(found)
    shown = {entrant.version_id: _shown(entrant, request.user) for entrant in table.entrants}
    return render(request, "web/tournament.html", {
        **_format_parts(found, shown),
        "swiss": _swiss(found, request.user) if found.format == Tournament.Format.SWISS else None,
        "tournament": found, "rows": _crosstable_rows(table, request.user),
        "standings": [(standing, _shown(standing.entrant, request.user)) for standing in table.standings],
        "tiebreaks": [TIEBREAK_LABELS[name] for name in table.tiebreaks],
        "is_organiser": organiser, "takes_entrants": takes_entrants,
        "progress": selectors.tournament_progress(request.user, found),
        "matches": selectors.tournament_matches(request.user, found),
        "form": form, "game_name": selectors.GAME_NAMES[found.game]},
        status=_refused_status(form) if form.errors else 200)


@require_GET
def tournament_games(request, tournament_id: int):
    """The tournament's games as one JSON Lines download (``api.records``: the same file as the API's)."""
    found = selectors.tournament(tournament_id)
    if found is None:
        return not_found(request, what="tournament")
    return api_records.tournament_games_jsonl(request.user, found)


@require_GET
def tournament_records(request, tournament_id: int):
    """The tournament's records in the text notation, one zip (``api.exports``: the API's file, its throttle)."""
    found = selectors.tournament(tournament_id)
    if found is None:
        return not_found(request, what="tournament")
    refused = api_throttles.refusal(request, "exports")
    if refused is not None:
        return HttpResponse(str(refused.detail), status=429, content_type="text/plain; charset=utf-8",
                            headers={"Retry-After": str(int(refused.wait or 60))})
    return api_exports.tournament_records_zip(request, found)


def tournament_trf(request, tournament_id: int):
    """The tournament as a TRF16 download (``api.records``: the same file as the API's)."""
    found = selectors.tournament(tournament_id)
    if found is None:
        return not_found(request, what="tournament")
    return api_records.tournament_trf_response(request.user, found)


def _swiss(found: Tournament, user) -> dict:
    """A Swiss's standings with its tie-breaks and round-by-round cells, and each round's boards with colours,
    results and a link to every game the user may see."""
    table = swiss_table(found)
    games: dict[int, list[int]] = {}
    for game_id, match_id in (api_selectors.games_visible_to(user).filter(match__tournament=found)
                              .order_by("match_id", "number").values_list("id", "match_id")):
        games.setdefault(match_id, []).append(game_id)
    shown = {seed: _shown(entrant, user) for seed, entrant in table.entrants.items()}
    seed_of = {entrant.version_id: seed for seed, entrant in table.entrants.items()}
    boards: dict[int, list[dict]] = {}
    for line in table.lines:
        for number, cell in enumerate(line.cells, start=1):
            match = cell.match
            if match is None:
                continue
            white = match.version_a_id == line.entrant.version_id  # A has white in the first game
            opponent = seed_of[match.version_b_id if white else match.version_a_id]
            if cell.round.opponent is None:  # in play, or failed: the cell still names the pairing
                cell.pending = (opponent, "w" if white else "b", match.status)
            if white:
                boards.setdefault(number, []).append({
                    "match": match, "white": line.entrant, "black": table.entrants[opponent],
                    "white_shown": shown[line.entrant.seed], "black_shown": shown[opponent],
                    "points": cell.round.points, "games": games.get(match.pk, [])})
    rounds = [{"row": row, "boards": sorted(boards.get(row.number, []), key=lambda b: b["match"].pk),
               "bye_shown": row.bye is not None and shown[row.bye.seed]} for row in table.rounds if not row.note]
    withdrawn = {seed: getattr(entrant, "swiss_withdrawal", None) for seed, entrant in table.entrants.items()}
    return {"lines": [(line, shown[line.entrant.seed], withdrawn[line.entrant.seed]) for line in table.lines],
            "rounds": rounds,
            "note": table.note, "tiebreaks": [name for name, _ in table.lines[0].standing.tiebreaks]
            if table.lines else [],
            "heads": [(name, SWISS_HEADS.get(name, name)) for name, _ in table.lines[0].standing.tiebreaks]
            if table.lines else []}


# The Swiss standings' column heads (the long names in a title): ten columns and the rounds fit a laptop.
SWISS_HEADS = {"Buchholz cut-1": "BH-C1", "Buchholz": "BH", "Sonneborn-Berger": "SB", "wins": "Wins",
               "direct encounter": "DE"}


# (short, long) label of each tie-break, as the standings table heads its columns.
TIEBREAK_LABELS = {"direct_encounter": ("DE", "Direct encounter"), "wins": ("Wins", "Games won"),
                   "sonneborn_berger": ("SB", "Sonneborn–Berger"), "koya": ("Koya", "Koya")}


def _format_parts(found: Tournament, shown: dict) -> dict:
    """What a gauntlet's or a knockout's page adds: its table per opponent, or its bracket."""
    if found.format == Tournament.Format.GAUNTLET:
        table = gauntlet_table(found)
        for row in table.rows:
            row.shown = shown.get(row.opponent.version_id, False)
        champion_shown = table.champion is not None and shown.get(table.champion.version_id, False)
        return {"gauntlet": table, "champion_shown": champion_shown}
    if found.format == Tournament.Format.KNOCKOUT:
        drawn = knockout_bracket(found)
        for pairings in drawn.rounds:
            for pairing in pairings:
                pairing.high_shown = pairing.high is not None and shown.get(pairing.high.version_id, False)
                pairing.low_shown = pairing.low is not None and shown.get(pairing.low.version_id, False)
        winner_shown = drawn.champion is not None and shown.get(drawn.champion.version_id, False)
        return {"bracket": [(round_name(len(pairings), number), pairings)
                            for number, pairings in enumerate(drawn.rounds, start=1)],
                "bracket_winner": drawn.champion, "winner_shown": winner_shown}
    return {}


def _tournament_action(request, found: Tournament, choices):
    """The organiser's add-entrant (as a gauntlet's champion too), start or a Swiss's withdrawal; the form with its
    errors, or None when it was done."""
    if request.POST.get("action") == "withdraw":
        return _withdraw(request, found)
    form = forms.EntrantForm(request.POST, choices=choices)
    if forms.throttled(request, form, "writes"):
        return form
    if request.POST.get("action") == "champion":
        if form.is_valid() and forms.run_service(form, lambda: _enter_champion(
                request.user, found, form.cleaned_data["version"])) is not None:
            return None
        return form
    if request.POST.get("action") == "start":
        if forms.run_service(form, lambda: app_services.start_tournament(found)) is not None:
            messages.success(request, "Started: the matches are queued.")
            return None
        return form
    if form.is_valid() and forms.run_service(form, lambda: app_services.add_entrant(
            found, api_services.entrant_version(request.user, form.cleaned_data["version"]))):
        return None
    return form


def _withdraw(request, found: Tournament):
    """The API's DELETE of an entrant, from the Swiss's standings: the same service, the same ``writes``
    throttle; the form with its errors, or None when it was done."""
    form = forms.WithdrawForm(request.POST)
    if forms.throttled(request, form, "writes") or not form.is_valid():
        return form
    entrant = found.entrants.filter(version_id=form.cleaned_data["version"]).select_related("version__bot").first()
    if entrant is None:
        form.add_error("version", f"version {form.cleaned_data['version']} is not entered in this tournament")
        return form
    if forms.run_service(form, lambda: app_services.remove_entrant(found, entrant.version) or True) is None:
        return form
    messages.success(request, f"Seed {entrant.seed} withdrawn: it plays out its current round, then no more.")
    return None


@transaction.atomic
def _enter_champion(user, found: Tournament, version_id: int):
    version = api_services.entrant_version(user, version_id)
    if not found.entrants.filter(version=version).exists():
        app_services.add_entrant(found, version)
    return app_services.change_tournament(found, user, champion=version)


def _crosstable_rows(table, user) -> list[dict]:
    """Each entrant's row of the crosstable, in seed order; ``shown`` is false for a private bot the user may not
    see (its results stay, its name and link do not, as in the API)."""
    ranks = {standing.entrant.version_id: standing for standing in table.standings}
    return [{"entrant": entrant, "standing": ranks[entrant.version_id], "shown": _shown(entrant, user),
             "cells": [None if other.version_id == entrant.version_id
                       else table.cells[entrant.version_id][other.version_id] for other in table.entrants]}
            for entrant in table.entrants]


def _shown(entrant, user) -> bool:
    return app_selectors.may_see_bot(user, entrant.version.bot)


@login_required
def tournament_create(request):
    form = forms.TournamentForm(request.POST or None, user=request.user, suites=_suites_of(None))
    if request.method == "POST" and not forms.throttled(request, form, "tournaments") and form.is_valid():
        created = forms.run_service(form, lambda: app_services.create_tournament(request.user, **{
            **form.cleaned_data, "opening_suite": api_services.opening_suite_for(form.cleaned_data["opening_suite"])}))
        if created is not None:
            messages.success(request, "Created: add the entrants, then start it.")
            return redirect("web:tournament", tournament_id=created.pk)
    return render(request, "web/form.html", {"form": form, "title": "New tournament",
                                             "button": "Create the tournament"},
                  status=_refused_status(form) if form.errors else 200)


def player(request, username: str):
    """A player's page; to the player themself it is their account page too: storage, worker time, the API token."""
    found = selectors.player(username)
    if found is None:
        return not_found(request, what="player")
    own = request.user.is_authenticated and request.user.pk == found.pk  # storage and worker time: their own business
    refused = None
    if request.method == "POST":
        if not own or request.POST.get("action") != "rotate-token":
            return not_found(request, what="player")
        refused = _rotate_token(request)
        if refused is None:
            return redirect("web:player", username=found.username)
    response = render(request, "web/player.html", {
        "player": found, "bots": selectors.player_bots(request.user, found), "game_names": selectors.GAME_NAMES,
        "tournaments": list(app_selectors.tournament_list().filter(organiser=found)[:20]),
        "storage": (app_services.storage_used(found), app_services.storage_quota(found)) if own else None,
        # Only the player sees their own worker time (what they have queued, what they used lately) and token.
        "worker_time": worker_time.usage(found.pk) if own else None,
        "token": app_services.api_token(found) if own else None, "token_refused": refused,
        "webhooks": webhooks.section(found) if own else None},
        status=_refused_status(refused=refused) if refused else 200)
    if own:
        response["Cache-Control"] = "private, no-store"  # the page holds the token: no cache keeps it
    return response


def _rotate_token(request) -> str | None:
    """The player replaces their API token: None when done, else why not (the API's ``token`` throttle: one lock
    for every door that hands out tokens)."""
    refused = api_throttles.refusal(request, "token")
    if refused is not None:
        return str(refused.detail)
    app_services.rotate_token(request.user)
    messages.success(request, "Your API token was replaced: the old one no longer works. Use the new one below.")
    return None


def register(request):
    form = forms.RegisterForm(request.POST or None)
    if request.method == "POST" and not forms.throttled(request, form, "registration") and form.is_valid():
        user = forms.run_service(form, lambda: api_services.register_player(**form.cleaned_data))
        if user is not None:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"Welcome, {user.username}. Create your first bot.")
            return redirect("web:bot-create")
    return render(request, "web/form.html", {"form": form, "title": "Register", "button": "Register"},
                  status=_refused_status(form) if form.errors else 200)


# --- taking part ------------------------------------------------------------------------------------

def take_part(request):
    kits = [(game_id, selectors.GAME_NAMES[game_id], starters.kits_of(game_id)) for game_id in GAME_IDS]
    return render(request, "web/take_part.html", {"kits": kits})


def protocol(request):
    kits = [(selectors.GAME_NAMES[game_id], starters.kits_of(game_id)) for game_id in GAME_IDS]
    return render(request, "web/protocol.html", {"html": docs.render("protocol.md"), "kits": kits})


def bot_library(request):
    return HttpResponse(starters.library_zip(), content_type="application/zip",
                        headers={"Content-Disposition": 'attachment; filename="engines.zip"'})


def rules_index(request):
    return render(request, "web/rules.html", {"title": "Rules", "html": docs.render("rules/README.md")})


def rules(request, page: str):
    """A game's rules, from ``docs/rules/<page>.md``; a Fidchell game id leads to its rule set's section."""
    if page in docs.SECTION_OF_GAME:
        target = reverse("web:rules", args=[docs.PAGE_OF_GAME[page]]) + "#" + docs.SECTION_OF_GAME[page]
        return redirect(target)
    if page not in docs.RULE_PAGES:
        return not_found(request, what="rule page")
    title = boards.TITLES.get(page, "Fidchell") + " rules"
    return render(request, "web/rules.html", {"title": title, "html": docs.render(f"rules/{docs.RULE_PAGES[page]}")})


def starter_kit(request, name: str):
    archive = starters.kit_zip(name)
    if archive is None:
        return not_found(request, what="starter kit")
    return HttpResponse(archive, content_type="application/zip",
                        headers={"Content-Disposition": f'attachment; filename="{name}.zip"'})


# --- logging in ---------------------------------------------------------------------------------------

class LoginView(auth_views.LoginView):
    """The site's login: the API's login throttle, and django-axes' lockout (AuthenticationForm calls
    authenticate() with the request, so axes counts each failure per (account, address) and per address)."""

    template_name = "web/login.html"

    def post(self, request, *args, **kwargs):
        form = self.get_form()
        if forms.throttled(request, form, "login"):
            return self.render_to_response(self.get_context_data(form=form), status=429)
        response = super().post(request, *args, **kwargs)
        if getattr(request, "axes_locked_out", False):  # even the right password: the form again, not logged in
            form = response.context_data["form"]
            form.errors.clear()  # "enter a correct password" would be untrue; the refusal says why instead
            form.add_error(None, api_throttles.lockout_message())
            response.status_code = 429
        return response


def login_locked_out(request, original_response=None, credentials=None):
    """django-axes' answer to a locked-out login (AXES_LOCKOUT_CALLABLE): the site's form keeps its own 429 page
    (LoginView), the admin's gets the same words as the site and the API."""
    if original_response is not None and original_response.status_code == 429:
        return original_response
    return HttpResponse(api_throttles.lockout_message(), status=429, content_type="text/plain; charset=utf-8")
