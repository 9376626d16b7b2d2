"""Routes under /api/ (the root URLconf includes this module there)."""

from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from . import exports, openings, views, webhooks

router = DefaultRouter()
router.include_root_view = False  # views.ApiRootView lists every endpoint, not only the router's
router.register("players", views.PlayerViewSet, basename="player")
router.register("bots", views.BotViewSet, basename="bot")
router.register("versions", views.BotVersionViewSet, basename="version")
router.register("matches", views.MatchViewSet, basename="match")
router.register("games", views.GameViewSet, basename="game")
router.register("tournaments", views.TournamentViewSet, basename="tournament")
router.register("openings", openings.OpeningSuiteViewSet, basename="opening-suite")
router.register("webhooks", webhooks.EndpointViewSet, basename="webhook")

urlpatterns = [
    path("auth/token/", views.TokenView.as_view(), name="api-token"),
    path("auth/register/", views.RegisterView.as_view(), name="api-register"),
    re_path(r"^games/(?P<pk>[0-9]{1,18})/record\.txt$", views.GameRecordTextView.as_view(), name="game-record-txt"),
    path("games/export.jsonl", exports.DatasetExportView.as_view(), name="games-export"),
    re_path(r"^tournaments/(?P<pk>[0-9]{1,18})/records\.zip$", exports.TournamentRecordsView.as_view(),
            name="tournament-records-zip"),
    re_path(r"^tournaments/(?P<pk>[0-9]{1,18})/games\.jsonl$", views.TournamentGamesView.as_view(),
            name="tournament-games-jsonl"),
    path("events/stream/", webhooks.EventStreamView.as_view(), name="event-stream"),
    re_path(r"^tournaments/(?P<pk>[0-9]{1,18})/trf/$", views.TournamentTrfView.as_view(), name="tournament-trf"),
    path("leaderboard/<str:game>/", views.LeaderboardView.as_view(), name="leaderboard"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
    path("", views.ApiRootView.as_view(), name="api-root"),
    path("", include(router.urls)),
]
