"""The OpenAPI schema is valid and accurate enough for schemathesis to fuzz every operation in-process
(through the WSGI app, authenticated as a seeded player) without a single server error."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from .conftest import finished_match, make_bot, ready_version

EXAMPLES_PER_OPERATION = 12


def test_schema_and_docs_are_served(anon, db):
    schema = anon.get("/api/schema/?format=json")
    assert schema.status_code == 200
    spec = schema.json()
    assert spec["openapi"].startswith("3.")
    upload = spec["paths"]["/api/bots/{id}/versions/"]["post"]["requestBody"]["content"]
    assert upload["multipart/form-data"]["schema"]["$ref"].endswith("/VersionUpload")
    version_upload = spec["components"]["schemas"]["VersionUpload"]["properties"]["file"]
    assert version_upload == {"type": "string", "format": "binary",
                              "description": version_upload["description"]}
    assert spec["components"]["schemas"]["MatchStatusEnum"]["enum"] == [
        "queued", "running", "finished", "failed", "cancelled"]
    assert "text/plain" in spec["paths"]["/api/games/{id}/record.txt"]["get"]["responses"]["200"]["content"]
    assert anon.get("/api/docs/").status_code == 200


@pytest.fixture
def seeded_world(player, other_player):
    """Something behind most ids: bots, versions, a finished match with games, a draft tournament."""
    from tournaments.services import add_entrant, api_token, create_tournament

    mine = ready_version(make_bot(player, "alpha"))
    theirs = ready_version(make_bot(other_player, "beta"))
    finished_match(mine, theirs)
    tournament = create_tournament(player, name="Fuzz cup", game="tafl9")
    add_entrant(tournament, mine)
    return {"Authorization": f"Token {api_token(player)}"}


@pytest.fixture
def wsgi_schema(seeded_world):
    """The real WSGI app. Like Django's test client, keep the test's connection open between requests:
    the handler's close_old_connections would otherwise close it inside the test transaction."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    from config.wsgi import application

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield schemathesis.openapi.from_wsgi("/api/schema/", application)
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


schema = schemathesis.pytest.from_fixture("wsgi_schema")


@schema.parametrize()
@settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_no_server_errors(case, seeded_world):
    case.call_and_validate(headers=seeded_world, checks=[not_a_server_error])


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
