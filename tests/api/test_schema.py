"""The OpenAPI schema is the API's contract: schemathesis with all its checks, on every operation and in its
stateful phase, in-process through the WSGI app, authenticated with a registered player's token, finds
nothing (configuration: schemathesis.toml at the repository root), on SQLite and on PostgreSQL
(``test_this_module_on_postgresql`` runs the module again there: skipped on a laptop without PostgreSQL, a
failure when ``CI`` is set). Bounded: a fixed number of examples per operation and of stateful scenarios,
derandomized, about two minutes a database."""

from __future__ import annotations

from pathlib import Path

import pytest
import schemathesis
import schemathesis.config
from django.contrib.auth import get_user_model
from django.db import connection
from hypothesis import HealthCheck, settings

from tests.postgresql import rerun_on_postgresql
from tests.support import finished_match, make_bot, ready_version
from tests.support.openings import make_suite, play_openings

EXAMPLES_PER_OPERATION = 15
STATEFUL_SCENARIOS = 25
STATEFUL_STEPS = 8


def test_schema_and_docs_are_served(anon, db):
    schema = anon.get("/api/schema/?format=json")
    assert schema.status_code == 200
    spec = schema.json()
    assert spec["openapi"].startswith("3.")
    upload = spec["paths"]["/api/bots/{id}/versions/"]["post"]["requestBody"]["content"]
    assert upload["multipart/form-data"]["schema"]["$ref"].endswith("/VersionUploadRequest")  # request components split
    version_upload = spec["components"]["schemas"]["VersionUploadRequest"]["properties"]["file"]
    assert version_upload == {"type": "string", "format": "binary",
                              "description": version_upload["description"]}
    assert spec["components"]["schemas"]["MatchStatusEnum"]["enum"] == [
        "queued", "running", "finished", "failed", "cancelled"]
    assert "text/plain" in spec["paths"]["/api/games/{id}/record.txt"]["get"]["responses"]["200"]["content"]
    assert anon.get("/api/docs/").status_code == 200


CONFIG = Path(__file__).resolve().parents[2] / "schemathesis.toml"


@pytest.fixture
def seeded_world(anon, player, other_player):
    """Something behind most ids: bots, versions, a finished match with games, an opening suite played, a draft
    tournament; and the fuzzer's credentials: the token of a player registered through the API, as a new user
    would."""
    from tournaments.services import add_entrant, create_tournament

    mine = ready_version(make_bot(player, "alpha"))
    theirs = ready_version(make_bot(other_player, "beta"))
    finished_match(mine, theirs)
    play_openings(mine, theirs, make_suite(count=2), [1, 2], ["white", "none", "black", "white"])
    tournament = create_tournament(player, name="Fuzz cup", game="tafl9")
    add_entrant(tournament, mine)
    registered = anon.post("/api/auth/register/", {"username": "fuzzer", "password": "fuzz-tester-2026"},
                           format="json")
    assert registered.status_code == 201, registered.content
    fuzzer = ready_version(make_bot(get_user_model().objects.get(username="fuzzer"), "gamma"))
    add_entrant(create_tournament(fuzzer.bot.owner, name="Fuzzer cup", game="tafl9"), fuzzer)
    return {"Authorization": f"Token {registered.json()['token']}"}


@pytest.mark.skipif(connection.vendor == "postgresql", reason="already on PostgreSQL: the fuzz runs here")
@pytest.mark.slow
def test_this_module_on_postgresql():
    rerun_on_postgresql(__file__, "the schema fuzz", "arena_contract")


@pytest.fixture
def wsgi_schema(seeded_world, settings):
    """The real WSGI app. Like Django's test client, keep the test's connection open between requests:
    the handler's close_old_connections would otherwise close it inside the test transaction.

    With DEBUG on, as `./arena up` serves and where a run of schemathesis by hand meets the API: Django's own
    answers (its 404 page for an address no route matches) differ from DEBUG off, and must keep the contract too.
    """
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    from config.wsgi import application

    settings.DEBUG = True

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    loaded = schemathesis.openapi.from_wsgi("/api/schema/", application,
                                            config=schemathesis.config.SchemathesisConfig.from_path(CONFIG))

    class RegisteredPlayer:
        """The credentials, as schemathesis knows them: given, not generated (its auth checks then send the
        request without them, and with a wrong token, and expect a 401)."""

        def get(self, case, context):
            return seeded_world["Authorization"]

        def set(self, case, data, context):
            case.headers = {**(case.headers or {}), "Authorization": data}

    loaded.auth()(RegisteredPlayer)
    yield loaded
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


schema = schemathesis.pytest.from_fixture("wsgi_schema")

FUZZ = settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, derandomize=True,
                suppress_health_check=list(HealthCheck))


@pytest.mark.slow
@schema.parametrize()
@FUZZ
def test_every_operation_keeps_the_contract(case):
    """Every check schemathesis has (status codes, content types, response bodies and headers, negative data
    refused, schema-valid data accepted, authentication not ignored, unsupported methods...), on positive and
    negative data, authenticated as a registered player."""
    case.call_and_validate()


@pytest.mark.slow
def test_stateful_sequences_keep_the_contract(wsgi_schema):
    """The stateful phase: chains of calls that feed one response's ids into the next request (links inferred
    from the schema), every check on every step."""
    from django.core.cache import cache
    from django.db import transaction

    machine = wsgi_schema.as_state_machine()
    links = [name for name in dir(machine) if name.split("_")[0] in {"GET", "POST", "PATCH", "DELETE"}]
    assert len(links) >= 20, "few links between operations: the stateful phase would test little"

    class Scenario(machine):
        """Each scenario starts from the seeded world (Hypothesis replays scenarios: what one left behind, a bot
        name taken, would make the next one draw differently)."""

        def setup(self):
            self.savepoint = transaction.savepoint()

        def teardown(self):
            transaction.savepoint_rollback(self.savepoint)
            cache.clear()

    Scenario.run(settings=settings(max_examples=STATEFUL_SCENARIOS, stateful_step_count=STATEFUL_STEPS,
                                  deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)))


@pytest.mark.parametrize("page", ["/api/docs/", "/api/redoc/"])
def test_docs_pages_load_nothing_from_outside(anon, db, page):
    """Swagger UI and ReDoc come from drf-spectacular-sidecar: every script and stylesheet the page
    names is one of ours and is served, so the docs work on a machine without internet."""
    import re

    html = anon.get(page).content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+\.(?:js|css|png))"', html)
    assert assets, html[:500]
    for asset in assets:
        assert asset.startswith("/static/"), f"{page} loads {asset} from outside"
        response = anon.get(asset)
        assert response.status_code == 200, asset
        b"".join(response.streaming_content) if response.streaming else response.content
