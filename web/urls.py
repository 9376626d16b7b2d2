"""The site's pages (the root URLconf includes this module at /)."""

from django.contrib.auth import views as auth_views
from django.urls import path, re_path, register_converter

from . import openings, views, webhooks


class IdConverter:
    """Ids the database can hold; anything longer is a 404, never an overflow (as in the API)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value):
        return int(value)

    def to_url(self, value):
        return str(value)


register_converter(IdConverter, "id")

app_name = "web"
urlpatterns = [
    path("", views.home, name="home"),
    path("leaderboard/<str:game_id>/", views.leaderboard, name="leaderboard"),
    path("bots/new/", views.bot_create, name="bot-create"),
    path("bots/<id:bot_id>/", views.bot, name="bot"),
    path("games/<id:game_id>/", views.game, name="game"),
    path("matches/<id:match_id>/", views.match, name="match"),
    path("matches/<id:match_id>/live/", views.match_live, name="match-live"),
    path("matches/<id:match_id>/live/<id:number>.json", views.match_live_json, name="match-live-json"),
    path("matches/<id:match_id>/live/events", views.match_live_events, name="match-live-events"),
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/new/", views.tournament_create, name="tournament-create"),
    path("tournaments/<id:tournament_id>/", views.tournament, name="tournament"),
    path("tournaments/<id:tournament_id>/games.jsonl", views.tournament_games, name="tournament-games"),
    path("tournaments/<id:tournament_id>/records.zip", views.tournament_records, name="tournament-records"),
    path("tournaments/<id:tournament_id>/trf/", views.tournament_trf, name="tournament-trf"),
    path("openings/<str:game_id>/", openings.game_suites, name="opening-suites"),
    path("openings/<str:game_id>/<str:name>/", openings.suite, name="opening-suite"),
    path("players/<str:username>/", views.player, name="player"),
    path("webhooks/", webhooks.add, name="webhook-add"),  # from the player's own page, and back to it
    path("webhooks/<int:endpoint_id>/ping/", webhooks.ping, name="webhook-ping"),
    path("webhooks/<int:endpoint_id>/remove/", webhooks.remove, name="webhook-remove"),
    path("take-part/", views.take_part, name="take-part"),
    path("take-part/protocol/", views.protocol, name="protocol"),
    path("take-part/engines.zip", views.bot_library, name="bot-library"),
    path("take-part/<slug:name>.zip", views.starter_kit, name="starter-kit"),
    path("rules/", views.rules_index, name="rules-index"),
    path("rules/<slug:page>/", views.rules, name="rules"),
    path("account/register/", views.register, name="register"),
    path("account/login/", views.LoginView.as_view(), name="login"),
    path("account/logout/", auth_views.LogoutView.as_view(), name="logout"),
]

# Any other page address is the site's own 404 (Django's debug page is for developers, not visitors). Only
# addresses ending in a slash, so that CommonMiddleware still adds a missing slash to a real page's address.
urlpatterns.append(re_path(r"^(?!api/|admin/|static/|media/).*/$", views.not_found))
