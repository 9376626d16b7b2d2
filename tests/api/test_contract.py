"""The schema as the contract, piece by piece (issue 12): one error shape, strict parameters and bodies, the
statuses and security each operation documents, a description on every field, and a root that lists every
endpoint. The fuzzer (test_schema.py) finds these in bulk; here each is pinned by name."""

from __future__ import annotations

import pytest

from tests.support import make_bot


@pytest.fixture
def spec(anon, db):
    return anon.get("/api/schema/?format=json").json()


def assert_refused(response, field: str) -> None:
    """A 400 in the error shape, naming ``field``."""
    assert response.status_code == 400, response.content
    body = response.json()
    assert field in body, body
    assert all(isinstance(messages, list) and all(isinstance(m, str) for m in messages) for messages in body.values())


# --- one error shape ---------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/api/bots/999999/", "/api/leaderboard/chess/", "/api/games/1/record.txt",
                                  "/api/bots/x/", "/api/no-such-thing/", "/api/bots/%C2%84/"])
def test_a_404_has_the_error_shape(anon, db, path):
    response = anon.get(path)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert isinstance(response.json()["detail"], list)


def test_a_404_outside_the_api_stays_the_site_s_page(client, db):
    assert client.get("/no-such-page/")["Content-Type"].startswith("text/html")


@pytest.mark.parametrize("status, who, request_kwargs", [
    (401, "anon", {"HTTP_AUTHORIZATION": "Token not-a-token"}),
    (405, "ada", {}),
])
def test_other_errors_have_the_error_shape(request, db, status, who, request_kwargs):
    response = request.getfixturevalue(who).delete("/api/players/", **request_kwargs)
    assert response.status_code == status
    assert isinstance(response.json()["detail"], list)


def test_every_error_body_is_documented_as_the_error_component(spec):
    error = {"$ref": "#/components/schemas/Error"}
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            for code, response in operation["responses"].items():
                if code.startswith(("4", "5")):
                    assert response["content"]["application/json"]["schema"] == error, (method, path, code)
                    assert response["description"], (method, path, code)
    assert spec["components"]["schemas"]["Error"]["additionalProperties"]["type"] == "array"


# --- strict parameters -------------------------------------------------------------------------------

@pytest.mark.parametrize("query, field", [
    ("owner=0", "owner"), ("owner=x", "owner"), ("is_public=maybe", "is_public"), ("is_public=1", "is_public"),
    ("game=", "game"), ("game=chess", "game"), ("ordering=password", "ordering"),
    ("ordering=", "ordering"), ("ordering=id,id", "ordering"), ("ordering=%20id", "ordering"),
    ("page_size=null", "page_size"), ("owner_name=%00", "owner_name"),
    ("page_size=0", "page_size"), ("page_size=201", "page_size"), ("page=0", "page"), ("page=last", "page"),
])
def test_a_bad_list_parameter_is_a_400_naming_it(anon, player, query, field):
    make_bot(player, "alpha")
    assert_refused(anon.get(f"/api/bots/?{query}"), field)


@pytest.mark.parametrize("url, field", [
    ("/api/leaderboard/tafl9/?page_size=null", "page_size"),
    ("/api/matches/?page_size=abc", "page_size"),
    ("/api/matches/?rated=yes", "rated"),
    ("/api/matches/?created_after=9999-12-31T23:00:00-23:00", "created_after"),
    ("/api/games/?bot=0", "bot"),
    ("/api/tournaments/?organiser=-1", "organiser"),
])
def test_bad_parameters_elsewhere(anon, db, url, field):
    assert_refused(anon.get(url), field)


def test_a_moment_with_any_offset_python_reads_is_compared_in_utc(anon, versions):
    """PostgreSQL refuses an offset beyond 15:59 (it was a 500 there): the filter turns it to UTC first."""
    from tests.support import finished_match

    finished_match(*versions)
    response = anon.get("/api/matches/?created_after=2000-01-01T00:00:00-21:58")
    assert response.status_code == 200, response.content
    assert len(response.json()["results"]) == 1


def test_the_page_size_bounds_are_in_the_schema(spec):
    parameters = {p["name"]: p for p in spec["paths"]["/api/bots/"]["get"]["parameters"]}
    assert parameters["page_size"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 200}
    assert parameters["page"]["schema"]["minimum"] == 1
    assert parameters["owner"]["schema"]["minimum"] == 1
    assert parameters["ordering"]["schema"]["items"]["enum"][:2] == ["id", "name"]
    assert parameters["owner_name"]["schema"]["pattern"] == "^[^\\x00]*$"  # a NUL is refused: the schema says so
    bot_id = spec["paths"]["/api/bots/{id}/"]["get"]["parameters"][0]
    assert bot_id["schema"] == {"type": "integer", "minimum": 1, "maximum": 10**18 - 1}


# --- strict bodies -----------------------------------------------------------------------------------

@pytest.mark.parametrize("body, field", [
    ({"name": "ok", "game": "tafl9", "open_to_tournaments": 0}, "open_to_tournaments"),
    ({"name": "ok", "game": "tafl9", "is_public": "true"}, "is_public"),
    ({"name": 7, "game": "tafl9"}, "name"),
    ({"name": "ok", "game": "tafl9", "owner": 2}, "owner"),
    ({"name": " ok", "game": "tafl9"}, "name"),
    ({"name": "", "game": "tafl9"}, "name"),
])
def test_a_bot_body_of_the_wrong_shape_is_refused_and_changes_nothing(ada, db, body, field):
    from tournaments.models import Bot

    assert_refused(ada.post("/api/bots/", body, format="json"), field)
    assert not Bot.objects.exists()


@pytest.mark.parametrize("extra, field", [
    ({"games_per_match": "2"}, "games_per_match"), ({"games_per_match": 2.0}, "games_per_match"),
    ({"rated": 0}, "rated"), ({"time_control": " move:100"}, "time_control"), ({"version_a": True}, "version_a"),
])
def test_a_match_body_of_the_wrong_shape_is_refused(ada, versions, extra, field):
    from tournaments.models import Match

    mine, theirs = versions
    response = ada.post("/api/matches/", {"version_a": mine.pk, "version_b": theirs.pk, **extra}, format="json")
    assert_refused(response, field)
    assert not Match.objects.exists()


def test_a_form_body_is_a_415(ada, db):
    """JSON only (an upload excepted): a form would read an empty field as left out."""
    from tournaments.models import Bot

    response = ada.post("/api/bots/", {"name": "ok", "game": "tafl9"}, format="multipart")
    assert response.status_code == 415
    assert isinstance(response.json()["detail"], list)
    assert not Bot.objects.exists()


def test_request_bodies_forbid_unknown_fields_and_blank_names_in_the_schema(spec):
    schemas = spec["components"]["schemas"]
    assert schemas["BotCreateRequest"]["additionalProperties"] is False
    assert schemas["BotCreateRequest"]["properties"]["name"]["pattern"].startswith("^")
    assert schemas["RegisterRequest"]["properties"]["username"]["minLength"] == 1
    assert schemas["RegisterRequest"]["properties"]["password"]["minLength"] == 8
    assert "multipart/form-data" not in spec["paths"]["/api/bots/"]["post"]["requestBody"]["content"]


# --- statuses and security ---------------------------------------------------------------------------

def test_public_reads_are_open_to_anonymous_clients(spec):
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            anonymous = {} in operation.get("security", [{}])
            # one's own account, webhooks and events feed are read with one's token only
            private = path == "/api/players/me/" or path.startswith(("/api/webhooks/", "/api/events/"))
            if method == "get" and not private:
                assert anonymous, f"GET {path} is public but marked as needing a token"
            elif method == "get":
                assert not anonymous, f"GET {path} needs a token"
            elif path not in ("/api/auth/token/", "/api/auth/register/"):
                assert not anonymous, f"{method.upper()} {path} needs a token"


def test_each_operation_documents_its_errors(spec):
    paths = spec["paths"]
    assert {"400", "401", "404"} <= set(paths["/api/bots/"]["get"]["responses"])
    assert {"400", "401", "403", "404", "415", "429"} <= set(paths["/api/bots/{id}/"]["patch"]["responses"])
    assert {"401", "404"} <= set(paths["/api/games/{id}/"]["get"]["responses"])
    assert "401" not in paths["/api/auth/token/"]["post"]["responses"]
    assert "text/plain" in paths["/api/games/{id}/record.txt"]["get"]["responses"]["200"]["content"]


# --- the API explains itself -------------------------------------------------------------------------

def _undescribed(schema: dict, where: str, components: dict, seen: set) -> list[str]:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        if name in seen:
            return []
        seen.add(name)
        return _undescribed(components[name], name, components, seen)
    missing = []
    for name, prop in schema.get("properties", {}).items():
        described = prop.get("description") or any(part.get("description") for part in prop.get("allOf", []))
        if not described:
            missing.append(f"{where}.{name}")
        for inner in [prop, prop.get("items", {}), *prop.get("allOf", []), *prop.get("oneOf", [])]:
            if inner is not prop or "properties" in inner:
                missing += _undescribed(inner, f"{where}.{name}", components, seen)
    return missing


def test_every_field_has_a_description(spec):
    components = spec["components"]["schemas"]
    missing = []
    for name in components:
        missing += _undescribed({"$ref": f"#/components/schemas/{name}"}, name, components, set())
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            assert operation.get("description"), f"{method.upper()} {path} has no description"
            missing += [f"{method.upper()} {path} {p['name']}" for p in operation.get("parameters", [])
                        if not p.get("description")]
    assert not missing, missing


def test_the_root_lists_every_top_level_endpoint_with_a_sentence(anon, spec):
    root = anon.get("/api/")
    assert root.status_code == 200
    listed = root.json()
    assert all(entry["description"].endswith(".") for entry in listed.values())
    urls = {entry["url"].removeprefix("http://testserver") for entry in listed.values()}
    tops = {"/api/" + path.split("/")[2] + "/" for path in spec["paths"] if path != "/api/"}
    assert not {top for top in tops if not any(url.startswith(top) for url in urls)}, urls
    for name in ("leaderboard-tafl9", "leaderboard-shatra", "token", "register", "docs", "redoc", "schema"):
        assert name in listed
    for entry in listed.values():
        assert anon.get(entry["url"].removeprefix("http://testserver")).status_code in (200, 401, 405)


# --- an exact contract (issue 21) --------------------------------------------------------------------

OUT_OF_RANGE = "9223372036854775808"  # 2**63: beyond any id column


@pytest.mark.parametrize("method, path", [
    ("get", f"/api/bots/{OUT_OF_RANGE}/"), ("get", f"/api/games/{OUT_OF_RANGE}/record.txt"),
    ("get", f"/api/versions/{OUT_OF_RANGE}/download/"), ("patch", f"/api/bots/{OUT_OF_RANGE}/"),
    ("delete", f"/api/tournaments/1/entrants/{OUT_OF_RANGE}/"), ("post", f"/api/bots/1/sprt/{OUT_OF_RANGE}/stop/"),
    ("get", "/api/bots/1/no-such-thing/"),
])
@pytest.mark.parametrize("debug", [True, False])
def test_an_id_out_of_range_is_the_json_404_with_debug_on_or_off(ada, settings, method, path, debug):
    """With DEBUG on (how `./arena up` serves, and where a schemathesis run by hand looks) Django answered its HTML
    debug page for an address no route matches; the schema promises the JSON error there."""
    settings.DEBUG = debug
    response = getattr(ada, method)(path)
    assert response.status_code == 404, response.content[:200]
    assert response["Content-Type"].startswith("application/json")
    assert isinstance(response.json()["detail"], list)


def test_a_path_without_its_slash_still_redirects(anon, db, settings):
    settings.DEBUG = True
    response = anon.get("/api/bots")
    assert response.status_code == 301 and response["Location"] == "/api/bots/"


@pytest.mark.parametrize("method, url", [
    ("get", "/api/games/?tournamnet=5"), ("get", "/api/bots/?ownr=1"), ("get", "/api/bots/{bot}/?game=tafl9"),
    ("get", "/api/bots/{bot}/versions/?page=2"), ("get", "/api/leaderboard/tafl9/?ordering=id"),
    ("get", "/api/players/me/?page=1"), ("get", "/api/?x=1"), ("get", "/api/games/{game}/record.txt?plain=1"),
    ("patch", "/api/bots/{bot}/?dry_run=true"), ("post", "/api/auth/token/?next=/"),
])
def test_an_unknown_query_parameter_is_a_400_naming_it(ada, versions, method, url):
    from tests.support import finished_match
    from tournaments.models import Bot, Game

    finished_match(*versions)
    bot, game = versions[0].bot, Game.objects.first()
    url = url.format(bot=bot.pk, game=game.pk)
    response = getattr(ada, method)(url, {"description": "changed"} if method == "patch" else None, format="json")
    unknown = url.split("?")[1].split("=")[0]
    assert_refused(response, unknown)
    assert "unknown query parameter" in response.json()[unknown][0]
    assert Bot.objects.get(pk=bot.pk).description == ""  # the PATCH changed nothing


def _value_for(parameter: dict) -> str:
    schema = parameter["schema"]
    if schema.get("type") == "array":
        return schema["items"]["enum"][0]
    if "enum" in schema:
        return str(schema["enum"][0])
    return {"integer": "1", "boolean": "true"}.get(schema.get("type"), "2020-01-01T00:00:00Z"
                                                   if schema.get("format") == "date-time" else "x")


def test_every_documented_query_parameter_is_read_and_no_other(ada, spec, versions):
    """The parameters an endpoint reads (api.queries) are those the schema lists for it: each documented one is
    taken (whatever its value makes of it, it is not "unknown"), and a name it does not list is refused."""
    from tests.support import finished_match

    finished_match(*versions)
    tried = 0
    for path, operations in spec["paths"].items():
        if "get" not in operations:
            continue
        url = path.replace("{id}", str(versions[0].bot.pk)).replace("{game}", "tafl9")
        for parameter in operations["get"].get("parameters", []):
            if parameter["in"] == "query":
                response = ada.get(url, {parameter["name"]: _value_for(parameter)})
                body = b"" if response.streaming else response.content  # a download is the file itself
                assert b"unknown query parameter" not in body, (path, parameter["name"])
                tried += 1
        assert_refused(ada.get(url, {"not_a_parameter": "1"}), "not_a_parameter")
    assert tried > 40


def test_games_filter_by_tournament(anon, versions):
    from tests.support import finished_match
    from tournaments.services import create_tournament

    cup = create_tournament(versions[0].bot.owner, name="Cup", game="tafl9")
    in_cup, challenge = finished_match(*versions, tournament=cup), finished_match(*versions)
    games = anon.get(f"/api/games/?tournament={cup.pk}").json()["results"]
    assert sorted(game["match"] for game in games) == [in_cup.pk, in_cup.pk]
    assert anon.get(f"/api/games/?tournament={cup.pk + 1}").json()["results"] == []
    assert len(anon.get("/api/games/").json()["results"]) == 4  # the challenge's two as well
    assert_refused(anon.get("/api/games/?tournament=0"), "tournament")
    assert challenge.pk not in {game["match"] for game in games}


def test_the_game_record_is_described_field_by_field_as_the_readme_writes_it(spec, anon, versions):
    """The README's "Game records are JSON" lists the fields; the schema has each, typed and described."""
    import re
    from pathlib import Path

    from tests.support import finished_match

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    paragraph = readme[readme.index("Game records are JSON"):].split("\n\n")[0]
    fields = {name for name in re.findall(r"`([^`]+)`", paragraph) if re.fullmatch(r"[a-z_]+", name)}
    assert {"game", "actions", "times", "thinking"} <= fields
    record = spec["components"]["schemas"]["GameRecord"]
    assert fields <= set(record["properties"])
    assert set(record["required"]) == {"game", "ruleset", "settings", "initial", "actions", "winner", "reason",
                                       "plies"}
    assert record["properties"]["actions"] == {"type": "array", "items": {"type": "string"},
                                               "description": record["properties"]["actions"]["description"]}
    game = spec["components"]["schemas"]["Game"]["properties"]["record"]
    assert game["allOf"] == [{"$ref": "#/components/schemas/GameRecord"}]
    served = anon.get(f"/api/games/{finished_match(*versions).games.first().pk}/").json()["record"]
    assert set(served) <= set(record["properties"]) and set(record["required"]) <= set(served)


def test_a_bearer_token_is_told_the_scheme_is_token(player, db):
    from rest_framework.test import APIClient

    from tournaments.services import api_token

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token(player)}")
    for response in (client.get("/api/players/me/"), client.get("/api/bots/")):  # a public read too: not anonymous
        assert response.status_code == 401
        assert "Token <token>" in response.json()["detail"][0] and "not Bearer" in response.json()["detail"][0]
        assert response["WWW-Authenticate"] == "Token"


def test_the_sprt_request_has_a_sane_name(spec):
    schemas = spec["components"]["schemas"]
    assert not [name for name in schemas if name.endswith("RequestRequest")]
    body = spec["paths"]["/api/bots/{id}/sprt/"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/SprtRequest"}


def test_the_games_bound_in_the_schema_is_the_server_s(spec, ada, versions, settings):
    schemas = spec["components"]["schemas"]
    assert settings.ARENA["MAX_GAMES_PER_MATCH"] == 100
    assert schemas["ChallengeRequest"]["properties"]["games_per_match"]["maximum"] == 100
    assert schemas["TournamentCreateRequest"]["properties"]["games_per_pairing"]["maximum"] == 100
    mine, theirs = versions
    response = ada.post("/api/matches/", {"version_a": mine.pk, "version_b": theirs.pk, "games_per_match": 101},
                        format="json")
    assert_refused(response, "games_per_match")
    assert "from 1 to 100" in response.json()["games_per_match"][0]


def test_the_games_bound_in_the_schema_follows_the_setting(anon, db, settings):
    settings.ARENA = {**settings.ARENA, "MAX_GAMES_PER_MATCH": 300}
    schemas = anon.get("/api/schema/?format=json").json()["components"]["schemas"]
    assert schemas["ChallengeRequest"]["properties"]["games_per_match"]["maximum"] == 300


def test_an_unknown_download_format_is_a_400_naming_it(ada, versions):
    mine, _ = versions
    response = ada.get(f"/api/versions/{mine.pk}/download/?format=zip")
    assert_refused(response, "format")
    assert "file, json" in response.json()["format"][0]
    assert ada.get(f"/api/versions/{mine.pk}/download/?format=file").status_code == 200
    assert_refused(ada.get("/api/bots/?format=xml"), "format")


def test_an_unknown_game_lists_the_games(ada, db):
    from engines import GAME_IDS
    from tournaments.models import Bot, Tournament

    for url, body in [("/api/bots/", {"name": "ok", "game": "chess"}),
                      ("/api/tournaments/", {"name": "Cup", "game": "chess"})]:
        response = ada.post(url, body, format="json")
        assert_refused(response, "game")
        assert all(game in response.json()["game"][0] for game in GAME_IDS), response.json()
    assert not Bot.objects.exists() and not Tournament.objects.exists()


def test_a_token_is_given_for_a_form_post(anon, player):
    """`curl -d username=…&password=…` works as well as a JSON body; the form is as strict as the JSON."""
    response = anon.post("/api/auth/token/", "username=ada&password=lovelace-1815",
                         content_type="application/x-www-form-urlencoded")
    assert response.status_code == 200, response.content
    assert response.json()["player"]["username"] == "ada"
    refused = anon.post("/api/auth/token/", "username=ada&password=lovelace-1815&remember=1",
                        content_type="application/x-www-form-urlencoded")
    assert_refused(refused, "remember")


def test_a_method_not_allowed_is_a_405_whatever_the_query(ada, db):
    response = ada.generic("TRACE", "/api/bots/?ordering=id&unknown=1")
    assert response.status_code == 405


def test_the_token_form_post_is_said_in_the_schema(spec):
    operation = spec["paths"]["/api/auth/token/"]["post"]
    assert "application/x-www-form-urlencoded" in operation["description"]
    assert list(operation["requestBody"]["content"]) == ["application/json"]  # one body type: see TokenView
