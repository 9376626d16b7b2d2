"""Who may write what: anonymous, another player, the owner, an admin × every write endpoint.

Each cell starts from the same fresh world (Ada owns a bot with a ready version and a draft or running
tournament; Grace owns an opponent) and checks the status code, and that refusals change nothing.
"""

from __future__ import annotations

import pytest

from tests.support import make_bot, ready_version
from tournaments.models import Bot, BotVersion, Match, Tournament, TournamentEntrant

from .conftest import bot_upload, client_for

ACTORS = ("anonymous", "other", "owner", "admin")


def world(player, other_player):
    from tournaments.services import add_entrant, create_tournament

    mine = ready_version(make_bot(player, "alpha"))
    spare = ready_version(make_bot(player, "spare"))
    theirs = ready_version(make_bot(other_player, "beta"))
    draft = create_tournament(player, name="Draft cup", game="tafl9")
    add_entrant(draft, mine)
    add_entrant(draft, theirs)
    return {"bot": mine.bot, "mine": mine, "spare": spare, "theirs": theirs, "draft": draft}


def _started(w):
    from tournaments.services import start_tournament

    start_tournament(w["draft"])
    return w["draft"]


def _cancelled(w):
    from tournaments.services import cancel_tournament

    tournament = _started(w)
    cancel_tournament(tournament)
    return tournament


# endpoint: (method, url(world), data(world) or None, format, expected per actor)
ENDPOINTS = {
    "create bot": ("post", lambda w: "/api/bots/", lambda w: {"name": "new", "game": "shatra"}, "json",
                   (401, 201, 201, 201)),
    "edit bot": ("patch", lambda w: f"/api/bots/{w['bot'].pk}/", lambda w: {"description": "changed"}, "json",
                 (401, 403, 200, 200)),
    "upload version": ("post", lambda w: f"/api/bots/{w['bot'].pk}/versions/", lambda w: {"file": bot_upload()},
                       "multipart", (401, 403, 201, 201)),
    "request match": ("post", lambda w: "/api/matches/",
                      lambda w: {"version_a": w["mine"].pk, "version_b": w["theirs"].pk}, "json",
                      (401, 400, 201, 201)),
    "create tournament": ("post", lambda w: "/api/tournaments/", lambda w: {"name": "Cup", "game": "tafl9"},
                          "json", (401, 201, 201, 201)),
    "add entrant": ("post", lambda w: f"/api/tournaments/{w['draft'].pk}/entrants/",
                    lambda w: {"version": w["spare"].pk}, "json", (401, 403, 201, 201)),
    "remove entrant": ("delete", lambda w: f"/api/tournaments/{w['draft'].pk}/entrants/{w['mine'].pk}/",
                       None, "json", (401, 403, 200, 200)),
    "start tournament": ("post", lambda w: f"/api/tournaments/{w['draft'].pk}/start/", None, "json",
                         (401, 403, 200, 200)),
    "cancel tournament": ("post", lambda w: f"/api/tournaments/{_started(w).pk}/cancel/", None, "json",
                          (401, 403, 200, 200)),
    "resume tournament": ("post", lambda w: f"/api/tournaments/{_cancelled(w).pk}/resume/", None, "json",
                          (401, 403, 200, 200)),
}


def snapshot():
    return (
        list(Bot.objects.order_by("id").values_list("id", "name", "description", "is_public")),
        list(BotVersion.objects.order_by("id").values_list("id", "status")),
        list(Match.objects.order_by("id").values_list("id", "status")),
        list(Tournament.objects.order_by("id").values_list("id", "status")),
        list(TournamentEntrant.objects.order_by("id").values_list("id", "seed")),
    )


@pytest.mark.parametrize("actor", ACTORS)
@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
def test_permission_matrix(endpoint, actor, player, other_player, admin_user):
    method, url, data, fmt, expected = ENDPOINTS[endpoint]
    w = world(player, other_player)
    target = url(w)
    users = {"anonymous": None, "other": other_player, "owner": player, "admin": admin_user}
    client = client_for(users[actor])
    before = snapshot()
    kwargs = {"format": fmt}
    if data is not None:
        kwargs["data"] = data(w)
    response = getattr(client, method)(target, **kwargs)
    want = expected[ACTORS.index(actor)]
    assert response.status_code == want, (endpoint, actor, response.content)
    if want >= 400:
        assert snapshot() == before
        assert response.json(), "errors are JSON"
    else:
        assert snapshot() != before


@pytest.mark.parametrize("url", ["/api/bots/", "/api/matches/", "/api/games/", "/api/tournaments/",
                                 "/api/players/", "/api/versions/", "/api/leaderboard/tafl9/"])
def test_anyone_reads_public_lists(url, anon, versions):
    assert anon.get(url).status_code == 200
