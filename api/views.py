"""REST endpoints. Thin: parse input with a serializer, call a service (writes) or a selector (reads),
answer with a serializer. Errors (Django ValidationError, referee errors) become 400s with the field
named, through ``api.exceptions.json_exception_handler``."""

from __future__ import annotations

import hashlib

from django.http import FileResponse, HttpResponse
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.generics import GenericAPIView, ListAPIView
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from engines import GAME_IDS
from ratings import selectors as ratings_selectors
from tournaments import selectors as app_selectors
from tournaments import services as app_services
from tournaments.gauntlet import gauntlet_table
from tournaments.knockout import bracket as knockout_bracket
from tournaments.models import BotVersion, Tournament
from tournaments.swiss.history import table as swiss_table

from . import formats, public, rows, selectors, serializers
from . import services as api_services
from .filters import BotFilter, BotVersionFilter, GameFilter, MatchFilter, StrictOrdering, TournamentFilter
from .pagination import NewestChangeFirstCursor, NewestFirstCursor, SmallPages
from .permissions import IsOwnerOrAdminOrReadOnly
from .queries import KnownQueryParameters
from .records import record_text, tournament_games_jsonl, tournament_trf_response
from .schema import refused_when
from .throttles import ArenaScopedThrottle

NAME_TAKEN = "you already have a bot of this name for this game."
LOCKED_OUT = ("Too many tries: too many failed logins for this account or from this address (the lockout "
              "lasts a while after the last failure), or too many token requests from this client.")

ID_REGEX = "[0-9]{1,18}"  # ids the database can hold; anything else is a 404, never an overflow
PATH_ID = {"type": "integer", "minimum": 1, "maximum": 10**18 - 1}  # the same, in the schema


class NoListFiltersOnDetail:
    """A retrieve looks up one id: building the list's filter set and ordering for it is wasted time. So is
    validating an empty filter form for a list asked for without any filter or ordering parameter."""

    def filter_queryset(self, queryset):
        if getattr(self, "action", None) == "retrieve" or not self._asks_for_filtering():
            return queryset
        return super().filter_queryset(queryset)

    def _asks_for_filtering(self) -> bool:
        filterset_class = getattr(self, "filterset_class", None)
        names = set(filterset_class.base_filters) if filterset_class is not None else set()
        names.add("ordering")
        return any(name in names for name in self.request.query_params)


class FileRenderer(BaseRenderer):
    """Lets a download be asked for as ``Accept: application/octet-stream`` (the file itself never goes through a
    renderer); an error answered to such a request is still the JSON error body."""

    media_type = "application/octet-stream"
    format = "file"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return JSONRenderer().render(data)


class ArenaViewMixin(KnownQueryParameters, NoListFiltersOnDetail):
    throttle_classes = [ArenaScopedThrottle]
    throttle_scope = "writes"
    action_scopes: dict[str, str] = {}  # the actions counted in a scope of their own, shared with the site's forms
    lookup_value_regex = ID_REGEX

    def get_throttles(self):
        self.throttle_scope = self.action_scopes.get(getattr(self, "action", None), type(self).throttle_scope)
        return super().get_throttles()


# --- the root ---------------------------------------------------------------------------------------

ROOT = [  # (name, URL name, arguments, what it is)
    ("players", "player-list", {}, "Players: user names and when they joined."),
    ("me", "player-me", {}, "You: your account, with your e-mail address (needs your token)."),
    ("register", "api-register", {}, "POST a user name and password to create an account; the answer has your token."),
    ("token", "api-token", {}, "POST your user name and password to get your API token "
                               "(send it as `Authorization: Token <token>`)."),
    ("bots", "bot-list", {}, "Bots: create one, upload versions of it, read anyone's public ones."),
    ("versions", "version-list", {}, "Bot versions and their smoke-test status."),
    ("matches", "match-list", {}, "Matches, newest first; POST asks for an unrated challenge."),
    ("games", "game-list", {}, "Games with their records, newest first; a record as text at /api/games/ID/record.txt."),
    ("tournaments", "tournament-list", {}, "Tournaments (round robin, Swiss, gauntlet, knockout): create, enter, "
                                           "start; standings and crosstables, a Swiss's rounds at "
                                           "/api/tournaments/ID/swiss/; a tournament's games as JSON Lines at "
                                           "/api/tournaments/ID/games.jsonl, its TRF16 at /api/tournaments/ID/trf/."),
    ("openings", "opening-suite-list", {}, "Opening suites (?game=): start positions played twice, colours swapped; "
                                           "a suite's balance by opening at /api/openings/ID/."),
    ("webhooks", "webhook-list", {}, "Your webhooks: events about your bots POSTed to your URLs, signed; each "
                                     "one's delivery log, and a test event."),
    ("events", "event-stream", {}, "Your events as Server-Sent Events (the webhooks' JSON)."),
    *((f"leaderboard-{game}", "leaderboard", {"game": game}, f"The {game} leaderboard: ranked bots, then provisional.")
      for game in GAME_IDS),
    ("schema", "api-schema", {}, "This API's OpenAPI 3 schema (YAML; ?format=json for JSON): generate a client "
                                 "from it."),
    ("docs", "api-docs", {}, "Interactive documentation (Swagger UI), usable offline."),
    ("redoc", "api-redoc", {}, "Reference documentation (ReDoc), usable offline."),
]


class ApiRootView(KnownQueryParameters, APIView):
    """Every top-level endpoint of the API, with its address and a sentence on what it is."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: serializers.api_root_serializer({name: text for name, _, _, text in ROOT})})
    def get(self, request):
        return Response({name: {"url": reverse(url_name, kwargs=kwargs, request=request), "description": text}
                         for name, url_name, kwargs, text in ROOT})


# --- auth and players -----------------------------------------------------------------------------

class TokenView(ArenaViewMixin, APIView):
    """Exchange a user name and password for the API token (send it as ``Authorization: Token <key>``)."""

    permission_classes = [AllowAny]
    authentication_classes = []
    throttle_scope = "token"
    # A form post too: what curl -d and most OAuth-style clients send for a password exchange (both are read
    # by the same strict serializer; only the declared fields, as text). The schema shows the JSON body only:
    # openapi-python-client generates code that does not import for an operation with two body types.
    parser_classes = [JSONParser, FormParser]

    @extend_schema(request={"application/json": serializers.TokenRequestSerializer},
                   responses={200: serializers.TokenSerializer,
                              400: refused_when("no active player has this user name and password."),
                              429: OpenApiResponse(serializers.ErrorSerializer, description=LOCKED_OUT)},
                   description="Exchange a user name and password for the API token (send it as `Authorization: "
                               "Token <token>`). The same two fields may also come as a form "
                               "(`application/x-www-form-urlencoded`, as `curl -d` sends them).",
                   auth=[])
    def post(self, request):
        data = serializers.TokenRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token, user = api_services.obtain_token(request, **data.validated_data)
        return Response(serializers.TokenSerializer({"token": token, "player": user}).data)


class RegisterView(ArenaViewMixin, APIView):
    """Create a player account; the answer carries its API token."""

    permission_classes = [AllowAny]
    authentication_classes = []
    throttle_scope = "registration"

    @extend_schema(request=serializers.RegisterSerializer,
                   responses={201: serializers.TokenSerializer,
                              400: refused_when("the user name is taken, or the password is too common, too like "
                                                "the user name or all digits.")},
                   auth=[])
    def post(self, request):
        data = serializers.RegisterSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = api_services.register_player(**data.validated_data)
        token = app_services.api_token(user)
        return Response(serializers.TokenSerializer({"token": token, "player": user}).data,
                        status=status.HTTP_201_CREATED)


class PlayerViewSet(KnownQueryParameters, NoListFiltersOnDetail, viewsets.ReadOnlyModelViewSet):
    """Players: their public profile (user name and when they joined)."""

    lookup_value_regex = ID_REGEX
    serializer_class = serializers.PlayerSerializer
    pagination_class = SmallPages
    filter_backends = [StrictOrdering]
    ordering_fields = ["id", "username", "date_joined"]

    def get_queryset(self):
        return selectors.players()

    @extend_schema(responses={200: serializers.MeSerializer})
    @action(detail=False, permission_classes=[IsAuthenticated], filter_backends=[], pagination_class=None)
    def me(self, request):
        """The signed-in player, with the e-mail address and whether they are staff."""
        return Response(serializers.MeSerializer(request.user).data)


# --- bots and versions ------------------------------------------------------------------------------

@extend_schema_view(
    create=extend_schema(request=serializers.BotCreateSerializer,
                         responses={201: serializers.BotSerializer, 400: refused_when(NAME_TAKEN)}),
    partial_update=extend_schema(
        request=serializers.BotUpdateSerializer,
        responses={200: serializers.BotSerializer, 400: refused_when(NAME_TAKEN)},
        description="Change the bot (owner or staff): rename it, show or hide it, open it to others' tournaments, "
                    "retire it or bring it back (`is_retired`), choose the version that plays (`pinned_version`). "
                    "Unknown fields are refused; a refused request changes nothing."),
    destroy=extend_schema(
        responses={204: None},
        description="Delete a bot that has never played a rated game (owner or staff), with its versions, their "
                    "files and its unrated matches. A bot with rated games, or entered in a tournament, is kept "
                    "(400): retire it instead with `PATCH {\"is_retired\": true}`."),
    retrieve=extend_schema(responses={200: serializers.BotDetailSerializer}),
)
class BotViewSet(ArenaViewMixin, mixins.CreateModelMixin, mixins.UpdateModelMixin, mixins.DestroyModelMixin,
                 viewsets.ReadOnlyModelViewSet):
    """Bots: anyone reads public ones, the owner also their private ones; the owner (or an admin) edits,
    retires or deletes."""

    action_scopes = {"versions": "uploads", "sprt": "sprt"}
    extra_query_parameters = {"versions": frozenset(BotVersionFilter.base_filters)}  # filtered by hand there
    permission_classes = [IsOwnerOrAdminOrReadOnly]
    pagination_class = SmallPages
    filterset_class = BotFilter
    filter_backends = [DjangoFilterBackend, StrictOrdering]
    ordering_fields = ["id", "name", "game", "created_at"]
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self):
        if self.action == "retrieve":
            return selectors.bot_detail_visible_to(self.request.user)
        return selectors.bots_visible_to(self.request.user)

    def get_serializer_class(self):
        if self.action == "retrieve":
            return serializers.BotDetailSerializer
        return serializers.BotSerializer

    def retrieve(self, request, pk=None):
        """One bot with its versions and its rating; a private bot only for its owner (and staff)."""
        def build():
            bot = self.get_object()
            return public.Page(rows.bot_detail(bot, request.user), shareable=app_selectors.seen_by_everyone(bot),
                               owners=(bot.owner_id,))

        return public.serve(request, f"bot:{int(pk)}", public.OUTSIDERS, public.LIVE_SECONDS, build,
                            scopes=(public.bot_scope(pk),))

    def create(self, request):
        """Create a bot for one game; it plays once a version of it is uploaded and ready."""
        data = serializers.BotCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        bot = app_services.create_bot(request.user, **data.validated_data)
        return Response(serializers.BotSerializer(bot).data, status=status.HTTP_201_CREATED)

    def partial_update(self, request, pk=None):
        """Change your bot's name, description, visibility or tournament consent."""
        bot = self.get_object()
        data = serializers.BotUpdateSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        bot = app_services.update_bot(bot, **data.validated_data)
        return Response(serializers.BotSerializer(bot).data)

    def destroy(self, request, pk=None):
        app_services.delete_bot(self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    def update(self, request, *args, **kwargs):
        return self.partial_update(request, *args, **kwargs)

    @extend_schema(
        methods=["GET"], responses={200: serializers.BotVersionSerializer(many=True)},
        parameters=[OpenApiParameter("status", str, enum=BotVersion.Status.values,
                                     description=BotVersionFilter.base_filters["status"].label),
                    *(OpenApiParameter(name, bool, description=BotVersionFilter.base_filters[name].label)
                      for name in ("is_disabled", "is_active"))])
    @extend_schema(
        methods=["POST"], request={"multipart/form-data": serializers.VersionUploadSerializer},
        responses={201: serializers.BotVersionSerializer,
                   400: refused_when("the file is not a bot the arena can unpack and build: its problem is "
                                     "named under `file`.")},
        description="Upload a new version: a single `.py` file, or a `.zip` / `.tar.gz` archive with a "
                    "`bot.toml`/`bot.json` manifest. It starts `pending` until the smoke test makes it `ready` "
                    "or `rejected` (the reason is shown to the owner).")
    @action(detail=True, methods=["get", "post"], parser_classes=[MultiPartParser, FormParser],
            pagination_class=None, filter_backends=[], throttle_classes=[ArenaScopedThrottle])
    def versions(self, request, pk=None):
        """A bot's versions, newest first (GET); upload a new one (POST)."""
        bot = self.get_object()
        if request.method == "GET":
            filters = BotVersionFilter(request.query_params, queryset=app_selectors.versions_of(bot))
            if not filters.is_valid():
                raise ValidationError(filters.errors)
            versions = filters.qs
            return Response(serializers.BotVersionSerializer(versions, many=True, context={"request": request}).data)
        data = serializers.VersionUploadSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        version = app_services.upload_version(bot, data.validated_data["file"])
        api_services.after_upload(version)
        return Response(serializers.BotVersionSerializer(version, context={"request": request}).data,
                        status=status.HTTP_201_CREATED)

    @extend_schema(responses={200: serializers.RatingChangeSerializer(many=True)})
    @action(detail=True, url_path="rating-history", pagination_class=NewestChangeFirstCursor, filter_backends=[])
    def rating_history(self, request, pk=None):
        """Each rated game's change to the bot's Elo, newest first (cursor pages)."""
        def build():
            bot = self.get_object()
            page = self.paginate_queryset(selectors.rating_history(bot).values(*rows.RATING_CHANGE_COLUMNS))
            body = self.get_paginated_response([rows.rating_change_row(row) for row in page]).data
            return public.Page(body, shareable=app_selectors.seen_by_everyone(bot))

        name = public.url_name(request, "rating-history")
        return public.serve(request, name, public.EVERYONE, public.LIVE_SECONDS, build, scopes=(public.bot_scope(pk),))


    @extend_schema(methods=["GET"], responses={200: serializers.VersionTestSerializer(many=True)})
    @extend_schema(
        methods=["POST"], request=serializers.VersionTestRequestSerializer,
        responses={201: serializers.VersionTestSerializer, 200: serializers.VersionTestForecastSerializer,
                   400: refused_when(
            "the bot has no such version, no earlier ready version to play against, or the version has a "
            "running SPRT already; or elo1 is not above elo0, elo0/elo1 beyond ±200, elo_model unknown, alpha or "
            "beta outside 0.001-0.2, or max_pairs outside 100 to ARENA_SPRT_MAX_PAIRS.")},
        description="Ask for an SPRT of a new version (default: the newest ready one) against the version before "
                    "it: unrated colour-swapped pairs until the LLR (pentanomial; elo0/elo1 in logistic or "
                    "normalized Elo; error rates alpha/beta) passes or fails it, or `max_pairs` pairs leave it "
                    "`inconclusive`. With `gate` the new version replaces the old on the ladder only if it "
                    "passes. With `preview` nothing starts: the answer (200) is the test's expected length at "
                    "each bound. Owner or admin only.")
    @action(detail=True, methods=["get", "post"], pagination_class=None, filter_backends=[])
    def sprt(self, request, pk=None):
        """The bot's SPRTs, newest first (GET); ask for one of a new version against the one before it (POST)."""
        bot = self.get_object()
        if request.method == "GET":
            tests = ratings_selectors.version_tests_of(bot.pk)
            return Response(serializers.VersionTestSerializer(tests, many=True).data)
        data = serializers.VersionTestRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        preview = values.pop("preview")
        arguments = {"version_id": values.pop("version", None), **values}
        if preview:
            arguments.pop("gate")
            arguments.pop("opening_suite", None)
            return Response(app_services.forecast_version_test(bot, **arguments))
        if "opening_suite" in arguments:
            arguments["opening_suite"] = api_services.opening_suite_for(arguments["opening_suite"])
        test = app_services.request_version_test(bot, **arguments)
        return Response(serializers.VersionTestSerializer(test).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=None,
        parameters=[OpenApiParameter("test", PATH_ID, OpenApiParameter.PATH, description="The SPRT's id.")],
        responses={200: serializers.VersionTestSerializer, 400: refused_when("the test has ended already.")},
        description="Stop a running SPRT of the bot without a verdict; its queued matches are cancelled. A gated "
                    "version stays off the ladder, as without a pass. Owner or admin only.")
    @action(detail=True, methods=["post"], url_path=rf"sprt/(?P<test>{ID_REGEX})/stop", url_name="sprt-stop",
            pagination_class=None, filter_backends=[])
    def stop_sprt(self, request, pk=None, test=None):
        """Stop one of the bot's running SPRTs."""
        bot = self.get_object()
        found = ratings_selectors.version_test_of(bot.pk, test)
        if found is None:
            raise NotFound(f"bot {bot.pk} has no SPRT {test}")
        return Response(serializers.VersionTestSerializer(app_services.stop_version_test(found)).data)

    @extend_schema(responses={200: serializers.OpponentSerializer(many=True)})
    @action(detail=True, pagination_class=None, filter_backends=[])
    def opponents(self, request, pk=None):
        """Results against each opponent the reader may see: games, W/D/L, score, Elo difference ± 95%."""
        def build():
            bot = self.get_object()
            results = app_selectors.opponents(bot, request.user)
            return public.Page(serializers.OpponentSerializer(results, many=True).data,
                               shareable=app_selectors.seen_by_everyone(bot))

        return public.serve(request, public.url_name(request, "opponents"), public.ANONYMOUS, public.LIVE_SECONDS,
                            build, scopes=(public.bot_scope(pk),))


@extend_schema_view(
    partial_update=extend_schema(
        request=serializers.VersionUpdateSerializer, responses={200: serializers.BotVersionSerializer},
        description="Deactivate a version, or activate it again (its bot's owner, or staff). Unknown fields are "
                    "refused; a refused request changes nothing."),
)
class BotVersionViewSet(ArenaViewMixin, mixins.UpdateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Bot versions you may see (of public bots, and your own): their smoke-test status; the rejection reason
    is shown to its owner and admins only. Its owner (or an admin) deactivates it and downloads the file they
    uploaded."""

    permission_classes = [IsOwnerOrAdminOrReadOnly]
    serializer_class = serializers.BotVersionSerializer
    pagination_class = SmallPages
    filterset_class = BotVersionFilter
    filter_backends = [DjangoFilterBackend, StrictOrdering]
    ordering_fields = ["id", "uploaded_at", "number"]
    http_method_names = ["get", "patch", "head", "options"]

    def get_queryset(self):
        return selectors.versions_visible_to(self.request.user)

    def partial_update(self, request, pk=None):
        version = self.get_object()
        data = serializers.VersionUpdateSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        if "is_active" in data.validated_data:  # a PATCH without it changes nothing, as the schema allows
            version = app_services.set_version_active(version, data.validated_data["is_active"])
        return Response(serializers.BotVersionSerializer(version, context={"request": request}).data)

    @extend_schema(
        responses={(200, "application/octet-stream"): OpenApiTypes.BINARY,
                   403: OpenApiResponse(serializers.ErrorSerializer, description="Not the bot's owner or staff."),
                   404: OpenApiResponse(serializers.ErrorSerializer,
                                        description="No such version you may see, or no uploaded file kept.")},
        parameters=[OpenApiParameter("format", OpenApiTypes.STR, OpenApiParameter.QUERY, enum=["file", "json"],
                                     description="`file` (the default) for the file itself; an error is JSON.")],
        description="The file exactly as its owner uploaded it (`.py`, `.zip` or `.tar.gz`), as an attachment named "
                    "by the version's `filename`: for the bot's owner and staff only (403 for others' public bots, "
                    "404 for private ones). Versions uploaded before the arena kept uploads have no file to give "
                    "(404, saying so).")
    @action(detail=True, filter_backends=[], pagination_class=None,
            renderer_classes=[JSONRenderer, FileRenderer])  # no HTML page: an error here is JSON
    def download(self, request, pk=None):
        version = self.get_object()
        if not app_selectors.is_insider(request.user, version.bot.owner_id):
            raise PermissionDenied("only the bot's owner (or staff) may download its files")
        if not version.original.name:
            raise NotFound(f"{version} was uploaded before the arena kept uploaded files: there is no file to give")
        try:
            stored = version.original.open("rb")
        except FileNotFoundError:
            raise NotFound(f"the file of {version} is missing from storage") from None
        return FileResponse(stored, as_attachment=True, filename=version.filename,
                            content_type="application/octet-stream")


# --- matches and games ------------------------------------------------------------------------------

@extend_schema_view(
    create=extend_schema(request=serializers.MatchRequestSerializer, responses={
        201: serializers.MatchSerializer,
        400: refused_when("a version id names no ready version you may use (A must be yours), the two are one "
                          "version or of different games, or the time control or the number of games is outside the "
                          "server's bounds.")}),
    retrieve=extend_schema(responses={200: serializers.MatchDetailSerializer}),
)
class MatchViewSet(ArenaViewMixin, mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Matches, newest first (cursor pages). POST asks for a casual or ranked match: your own ready
    version A against any public ready version B of the same game."""

    action_scopes = {"create": "challenges"}
    pagination_class = NewestFirstCursor
    filterset_class = MatchFilter
    filter_backends = [DjangoFilterBackend, StrictOrdering]
    ordering_fields = ["created_at", "finished_at"]

    def get_queryset(self):
        if self.action == "retrieve":
            return selectors.match_detail_visible_to(self.request.user)
        return selectors.matches_visible_to(self.request.user)

    def get_serializer_class(self):
        return serializers.MatchDetailSerializer if self.action == "retrieve" else serializers.MatchSerializer

    def list(self, request, *args, **kwargs):
        """Matches you may see, newest first (cursor pages), filtered by the parameters."""
        # Same filters, ordering and cursor as the generic list; rows instead of model instances.
        def build():
            page = self.paginate_queryset(self.filter_queryset(self.get_queryset()).values(*rows.MATCH_COLUMNS))
            return public.Page(self.get_paginated_response([rows.match_row(row) for row in page]).data)

        return public.serve(request, public.url_name(request, "matches"), public.ANONYMOUS, public.LIVE_SECONDS,
                            build, scopes=(public.MATCHES,))

    def create(self, request):
        """Ask for an unrated challenge: your ready version A against a ready version B of the same game (any
        public one, or yours); the match is queued and played by a worker."""
        data = serializers.MatchRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        match = api_services.request_match(
            request.user, values["version_a"], values["version_b"], rated=values["rated"],
            games=values.get("games_per_match"), time_control=values.get("time_control"))
        return Response(serializers.MatchSerializer(match).data, status=status.HTTP_201_CREATED)


class GameViewSet(KnownQueryParameters, NoListFiltersOnDetail, viewsets.ReadOnlyModelViewSet):
    """Games, newest first (cursor pages); one game with its full record, or the record as text."""

    lookup_value_regex = ID_REGEX
    pagination_class = NewestFirstCursor
    filterset_class = GameFilter
    filter_backends = [DjangoFilterBackend, StrictOrdering]
    ordering_fields = ["created_at"]

    def get_queryset(self):
        return selectors.games_visible_to(self.request.user, with_record=self.action == "retrieve")

    def get_serializer_class(self):
        return serializers.GameSerializer if self.action == "retrieve" else serializers.GameBriefSerializer

    def list(self, request, *args, **kwargs):
        """Games you may see, newest first (cursor pages), filtered by the parameters."""
        def build():
            page = self.paginate_queryset(self.filter_queryset(self.get_queryset()).values(*rows.GAME_COLUMNS))
            return public.Page(self.get_paginated_response([rows.game_row(row) for row in page]).data)

        return public.serve(request, public.url_name(request, "games"), public.ANONYMOUS, public.LIVE_SECONDS,
                            build, scopes=(public.MATCHES,))

    def retrieve(self, request, pk=None):
        """A game record with an ETag (the game is immutable: its id and its bots' names fix the body), 304
        when the client already holds it; shared caches may keep records of public bots for a minute. The
        public record has no bot's stderr or protocol log: a bot's owner (and staff) get theirs in a record
        built for them, never kept and never shared."""
        def build():
            game = self.get_object()
            data = self.get_serializer(game).data
            insider = bool(app_selectors.owned_sides(game, request.user))
            shared = not insider and all(app_selectors.seen_by_everyone(v.bot) for v in (game.white, game.black))
            names = f"{data['white']['bot_name']}\0{data['black']['bot_name']}".encode()
            view = "-own" if insider else ""
            return public.Page(data, shareable=shared, owners=(game.white.bot.owner_id, game.black.bot.owner_id),
                                etag=f'"game-{data["id"]}-{hashlib.blake2b(names, digest_size=8).hexdigest()}{view}"',
                                cache_control=f"public, max-age={GAME_RECORD_MAX_AGE}" if shared
                                else "private, no-cache")

        # "record:", not the former "game:": a page kept before the secrets were left out is never served.
        return public.serve(request, f"record:{int(pk)}", public.OUTSIDERS, public.RECORD_SECONDS, build)


GAME_RECORD_MAX_AGE = 60  # what a browser or proxy may reuse without asking (bounds a rename's staleness)


class GameRecordTextView(KnownQueryParameters, GenericAPIView):
    """A game's record as plain text: header tags, then the actions numbered by ply."""

    filter_backends = []
    pagination_class = None
    serializer_class = serializers.GameSerializer

    def get_queryset(self):
        return selectors.games_visible_to(self.request.user, with_record=True)

    @extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR})
    def get(self, request, pk=None):
        """The game's record as plain text: header tags, then the actions numbered by ply."""
        return HttpResponse(record_text(self.get_object()), content_type="text/plain; charset=utf-8")


# --- tournaments ------------------------------------------------------------------------------------

class JsonLinesRenderer(FileRenderer):
    """Lets the JSON Lines download be asked for as ``Accept: application/jsonl``; an error is still JSON."""

    media_type = "application/jsonl"
    format = "jsonl"


class TournamentGamesView(KnownQueryParameters, GenericAPIView):
    """A tournament's games as one download: JSON Lines, one public game record a line."""

    renderer_classes = [JSONRenderer, JsonLinesRenderer]  # no HTML page: an error here is JSON
    filter_backends = []
    pagination_class = None
    serializer_class = serializers.GameSerializer

    def get_queryset(self):
        return selectors.tournaments_all()

    # Left out of the schema: openapi-python-client (tests/api/test_generated_client.py) refuses a response of a
    # media type it does not know, and application/jsonl is one. A download, not a typed object; the API root and
    # the README name it.
    @extend_schema(exclude=True)
    def get(self, request, pk=None):
        """The tournament's games you may see (a private bot's only to its owner and staff), one JSON object a
        line, each as `/api/games/{id}/` gives it to an anonymous reader (no bot's stderr or log), streamed."""
        return tournament_games_jsonl(request.user, self.get_object())


class TournamentTrfView(KnownQueryParameters, GenericAPIView):
    """A tournament (round robin or Swiss) as FIDE's Tournament Report File, TRF16."""

    filter_backends = []
    pagination_class = None
    serializer_class = serializers.TournamentSerializer

    def get_queryset(self):
        return selectors.tournaments_all()

    @extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR})
    def get(self, request, pk=None):
        """The tournament as a TRF16 (the layout JaVaFo and bbpPairings read): one `001` line per entrant with its
        result in each round (a pairing's mini-match as one result: 1, = or 0), `XXR` the rounds; a Swiss's round
        still in play is left out. A private bot is named only to its owner and staff."""
        return tournament_trf_response(request.user, self.get_object())


@extend_schema_view(
    create=extend_schema(request=serializers.TournamentCreateSerializer, responses={
        201: serializers.TournamentSerializer,
        400: refused_when("the time control or the number of games is outside the server's bounds.")}),
    retrieve=extend_schema(responses={200: serializers.TournamentDetailSerializer}),
    partial_update=extend_schema(request=serializers.TournamentChangeSerializer, responses={
        200: serializers.TournamentDetailSerializer,
        400: refused_when("the tournament is not a draft, a player (not staff) set official, or a tie-break name "
                          "is unknown or repeated.")}),
)
class TournamentViewSet(ArenaViewMixin, mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Round-robin and Swiss tournaments. The organiser (or an admin) adds and removes entrants while it is a
    draft, starts it, cancels it, resumes it."""

    action_scopes = {"create": "tournaments"}
    permission_classes = [IsOwnerOrAdminOrReadOnly]
    pagination_class = SmallPages
    filterset_class = TournamentFilter
    filter_backends = [DjangoFilterBackend, StrictOrdering]
    ordering_fields = ["id", "created_at", "name"]

    def get_queryset(self):
        if self.action == "retrieve":
            return selectors.tournament_detail()
        return selectors.tournaments_all()

    def get_serializer_class(self):
        if self.action == "retrieve":
            return serializers.TournamentDetailSerializer
        return serializers.TournamentSerializer

    def create(self, request):
        """Create a tournament (a round robin, or a Swiss of `rounds` rounds) as a draft; you are its organiser."""
        data = serializers.TournamentCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        options = dict(data.validated_data)
        options["champion"] = api_services.champion_version(request.user, options.get("champion"))
        options["opening_suite"] = api_services.opening_suite_for(options.get("opening_suite"))
        tournament = app_services.create_tournament(request.user, **options)
        return Response(serializers.TournamentSerializer(tournament).data, status=status.HTTP_201_CREATED)

    def partial_update(self, request, pk=None):
        """Change a draft: its tie-break order (organiser or staff), or whether it is official (staff only)."""
        tournament = self._tournament_for_change()
        data = serializers.TournamentChangeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        options = dict(data.validated_data)
        if "champion" in options:
            options["champion"] = api_services.champion_version(request.user, options["champion"])
        app_services.change_tournament(tournament, request.user, **options)
        return self._detail(tournament)

    def _tournament_for_change(self) -> Tournament:
        tournament = self.get_object()  # checks the organiser (or admin) through the object permission
        return tournament

    def _detail(self, tournament: Tournament, code=status.HTTP_200_OK) -> Response:
        fresh = selectors.tournament_detail().get(pk=tournament.pk)
        return Response(serializers.TournamentDetailSerializer(fresh, context={"request": self.request}).data,
                        status=code)

    @extend_schema(request=serializers.EntrantRequestSerializer,
                   responses={201: serializers.TournamentDetailSerializer, 400: refused_when(
                       "the tournament is not a draft (or a running Swiss), or the version is not a ready version of "
                       "its game that you may enter (yours, or open to tournaments), or is entered already.")})
    @action(detail=True, methods=["post"], filter_backends=[], pagination_class=None)
    def entrants(self, request, pk=None):
        """Enter a ready version of the tournament's game (a draft, or a running Swiss: a late entry, paired from the
        next round and charged its rounds to come): yours, or another player's bot that is open to tournaments."""
        tournament = self._tournament_for_change()
        data = serializers.EntrantRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        version = api_services.entrant_version(request.user, data.validated_data["version"])
        app_services.add_entrant(tournament, version)
        return self._detail(tournament, status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={200: serializers.TournamentDetailSerializer,
                                            400: refused_when("the tournament is not a draft (or a running "
                                                              "Swiss), or the version has withdrawn already.")},
                   parameters=[OpenApiParameter("version_id", PATH_ID, OpenApiParameter.PATH,
                                                description="Id of the bot version to take out.")])
    @action(detail=True, methods=["delete"], url_path=r"entrants/(?P<version_id>[0-9]{1,18})", filter_backends=[],
            pagination_class=None)
    def remove_entrant(self, request, pk=None, version_id=None):
        """Take a version out of a draft tournament; from a running Swiss, withdraw it: it plays out its current
        round, keeps its results and is not paired again."""
        tournament = self._tournament_for_change()
        version = tournament.entrants.filter(version_id=version_id).select_related("version__bot").first()
        if version is None:
            raise NotFound(f"version {version_id} is not entered in this tournament")
        app_services.remove_entrant(tournament, version.version)
        return self._detail(tournament)

    @extend_schema(request=None, responses={200: serializers.TournamentDetailSerializer, 400: refused_when(
        "the tournament is not a draft, or has fewer than two entrants or more than the server allows.")})
    @action(detail=True, methods=["post"], filter_backends=[], pagination_class=None)
    def start(self, request, pk=None):
        """Start a draft tournament: its round-robin matches are scheduled and queued."""
        tournament = self._tournament_for_change()
        app_services.start_tournament(tournament)
        return self._detail(tournament)

    @extend_schema(request=None, responses={200: serializers.TournamentDetailSerializer, 400: refused_when(
        "the tournament is over (finished or cancelled already).")})
    @action(detail=True, methods=["post"], filter_backends=[], pagination_class=None)
    def cancel(self, request, pk=None):
        """Cancel a tournament: its queued matches are cancelled, finished ones stay."""
        tournament = self._tournament_for_change()
        app_services.cancel_tournament(tournament)
        return self._detail(tournament)

    @extend_schema(request=None, responses={200: serializers.TournamentDetailSerializer, 400: refused_when(
        "the tournament is not cancelled (only a cancelled one resumes).")})
    @action(detail=True, methods=["post"], filter_backends=[], pagination_class=None)
    def resume(self, request, pk=None):
        """Resume a cancelled tournament: the matches it still lacks are queued again."""
        tournament = self._tournament_for_change()
        app_services.resume_tournament(tournament)
        return self._detail(tournament)

    @extend_schema(responses={200: serializers.StandingSerializer(many=True)})
    @action(detail=True, filter_backends=[], pagination_class=None)
    def standings(self, request, pk=None):
        """The standings, best first: score, then the tournament's tie-breaks in its order (its `tiebreaks`; FIDE's
        direct encounter, wins, Sonneborn-Berger, Koya by default), each line listing them with its values
        (every entrant listed, with zeros, before any game)."""
        tournament = self.get_object()
        return Response(serializers.StandingSerializer(app_selectors.standings(tournament), many=True,
                                                       context={"request": request}).data)

    @extend_schema(responses={200: serializers.SwissSerializer})
    @action(detail=True, filter_backends=[], pagination_class=None)
    def swiss(self, request, pk=None):
        """A Swiss's rounds (each board's white and black seeds, its match, the bye, the note of an early end) and
        its standings: match points, then Buchholz cut-1, Buchholz, Sonneborn-Berger, wins, direct encounter."""
        tournament = self.get_object()
        if tournament.format != Tournament.Format.SWISS:
            raise NotFound("this tournament is not a Swiss")
        return Response(serializers.SwissSerializer(swiss_table(tournament), context={"request": request}).data)

    @extend_schema(responses={200: serializers.CrosstableRowSerializer(many=True)})
    @action(detail=True, filter_backends=[], pagination_class=None)
    def crosstable(self, request, pk=None):
        """The crosstable: one row per entrant in seed order, one cell per opponent."""
        tournament = self.get_object()
        table = app_selectors.crosstable(tournament)
        return Response(serializers.CrosstableRowSerializer(crosstable_rows(table), many=True,
                                                            context={"request": request}).data)


    @extend_schema(responses={200: formats.GauntletSerializer, 404: refused_when("not a gauntlet")})
    @action(detail=True, filter_backends=[], pagination_class=None)
    def gauntlet(self, request, pk=None):
        """A gauntlet's table: the champion's results against each opponent and over all, with the Elo difference
        and its 95% interval (colour-swapped pairs counted as pairs)."""
        tournament = self._of_format(Tournament.Format.GAUNTLET)
        return Response(formats.GauntletSerializer(formats.gauntlet(gauntlet_table(tournament)),
                                                   context={"request": request}).data)

    @extend_schema(responses={200: formats.BracketSerializer, 404: refused_when("not a knockout")})
    @action(detail=True, filter_backends=[], pagination_class=None)
    def bracket(self, request, pk=None):
        """A knockout's bracket: each round's pairings in bracket order, their points (tie-breaks included) and
        who advanced; byes go to the top seeds; level after every tie-break pair, the higher seed advances."""
        tournament = self._of_format(Tournament.Format.KNOCKOUT)
        return Response(formats.BracketSerializer(formats.bracket(knockout_bracket(tournament)),
                                                  context={"request": request}).data)

    def _of_format(self, kind: str) -> Tournament:
        tournament = self.get_object()
        if tournament.format != kind:
            raise NotFound(f"tournament {tournament.pk} is a {tournament.get_format_display()}, not a {kind}")
        return tournament


def crosstable_rows(table) -> list[dict]:
    """The selector's crosstable as rows in seed order, one cell per opponent seed (null on the diagonal)."""
    ranks = {standing.entrant.version_id: standing for standing in table.standings}
    rows = []
    for entrant in table.entrants:
        cells = []
        for opponent in table.entrants:
            if opponent.version_id == entrant.version_id:
                cells.append({"opponent_seed": opponent.seed, "points": None, "games": 0})
                continue
            points, games = table.cells[entrant.version_id][opponent.version_id]
            cells.append({"opponent_seed": opponent.seed, "points": points if games else None, "games": games})
        standing = ranks[entrant.version_id]
        rows.append({"seed": entrant.seed, "version": entrant.version, "cells": cells, "score": standing.score,
                     "rank": standing.rank})
    return rows


# --- ratings ----------------------------------------------------------------------------------------

class LeaderboardView(KnownQueryParameters, ListAPIView):
    """Public bots of one game: the ranked ones by fitted rating, then the provisional ones."""

    serializer_class = serializers.LeaderboardEntrySerializer
    pagination_class = SmallPages
    filter_backends = []

    @extend_schema(parameters=[OpenApiParameter("game", str, OpenApiParameter.PATH, enum=list(GAME_IDS),
                                                description="The game whose leaderboard to read.")],
                   responses={200: serializers.LeaderboardEntrySerializer(many=True)})
    def get(self, request, *args, **kwargs):
        """Public bots of one game, best first (page numbers): first the ranked bots (the version each plays the
        ladder with has a fitted 95% margin within LEADERBOARD_RANKED_MARGIN) by rank, with the 95% interval
        of that rank and the chance of being first; then the provisional ones without a rank (`standing` says
        why), by fitted rating, then live Elo. Each row also gives the bot's live Elo."""
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        game = self.kwargs["game"]
        if game not in GAME_IDS:
            raise NotFound(f"unknown game {game!r}; known: {', '.join(GAME_IDS)}")
        return selectors.leaderboard_rows(game)

    def list(self, request, *args, **kwargs):
        def build():
            page = self.paginate_queryset(self.get_queryset())
            fit = ratings_selectors.rating_fit(self.kwargs["game"])
            body = self.get_paginated_response([rows.leaderboard_row(row, fit) for row in page]).data
            return public.Page(body, cache_control=f"public, max-age={public.LIVE_SECONDS}")

        return public.serve(request, public.url_name(request, "leaderboard"), public.EVERYONE, public.LIVE_SECONDS,
                            build, scopes=(public.leaderboard_scope(self.kwargs["game"]),))

