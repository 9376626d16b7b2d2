"""Registration, tokens, session login, players and ``me``."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.http import HttpRequest

from .conftest import client_for


def test_register_returns_a_working_token(anon, db):
    response = anon.post("/api/auth/register/", {"username": "hypatia", "password": "alexandria-415"},
                         format="json")
    assert response.status_code == 201, response.content
    assert response.json()["player"]["username"] == "hypatia"
    client = client_for(None)
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    assert client.get("/api/players/me/").json()["username"] == "hypatia"


def test_register_rejects_a_weak_password_and_creates_nobody(anon, db):
    response = anon.post("/api/auth/register/", {"username": "weak", "password": "123"}, format="json")
    assert response.status_code == 400
    assert "password" in response.json()
    assert not get_user_model().objects.filter(username="weak").exists()


def test_register_rejects_a_taken_name(anon, player):
    response = anon.post("/api/auth/register/", {"username": "ada", "password": "another-pass-99"}, format="json")
    assert response.status_code == 400
    assert "username" in response.json()
    assert get_user_model().objects.filter(username="ada").count() == 1


def test_register_names_a_missing_field(anon, db):
    response = anon.post("/api/auth/register/", {"password": "alexandria-415"}, format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["username"]


def test_token_for_the_right_password_only(anon, player):
    good = anon.post("/api/auth/token/", {"username": "ada", "password": "lovelace-1815"}, format="json")
    assert good.status_code == 200
    from tournaments.services import api_token

    assert good.json()["token"] == api_token(player)
    bad = anon.post("/api/auth/token/", {"username": "ada", "password": "wrong"}, format="json")
    assert bad.status_code == 400
    assert "password" in bad.json()


def test_session_login_works_for_reads(player, client):
    client.login(request=HttpRequest(), username="ada", password="lovelace-1815")  # the lockout needs one
    assert client.get("/api/players/me/").json()["username"] == "ada"


def test_session_writes_need_csrf(player, db):
    from rest_framework.test import APIClient

    client = APIClient(enforce_csrf_checks=True)
    client.login(request=HttpRequest(), username="ada", password="lovelace-1815")  # the lockout needs one
    response = client.post("/api/bots/", {"name": "x", "game": "tafl9"}, format="json")
    assert response.status_code == 403


def test_me_needs_authentication(anon, db):
    assert anon.get("/api/players/me/").status_code in (401, 403)


def test_players_list_and_retrieve(anon, player, other_player):
    listed = anon.get("/api/players/").json()
    assert [p["username"] for p in listed["results"]] == ["ada", "grace"]
    assert "email" not in listed["results"][0]
    assert anon.get(f"/api/players/{other_player.pk}/").json()["username"] == "grace"
    assert anon.get("/api/players/999999/").status_code == 404
