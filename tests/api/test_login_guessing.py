"""Password guessing against one account, through POST /api/auth/token/ and /admin/login/, while the
attacker rotates X-Forwarded-For (and User-Agent): stopped per account and per address, the right password
refused during the lockout, nothing changed but the failure counts. And the client address behind it:
X-Forwarded-For only counts behind trusted proxies (TRUSTED_PROXY_COUNT, REST_FRAMEWORK NUM_PROXIES)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.apps import apps
from django.test import Client

from .conftest import client_for, throttle_rates

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 5  # failed logins before a lockout, in these tests


@pytest.fixture(autouse=True)
def _small_lockout(settings):
    settings.AXES_FAILURE_LIMIT = LIMIT


def trusted_proxies(settings, count: int) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": count}


def database_state() -> dict:
    """Every row of every table but the lockout's own counts (django-axes)."""
    return {model._meta.label: sorted(map(repr, model.objects.values_list()))
            for model in apps.get_models() if model._meta.app_label != "axes"}


def failure_rows() -> list[str]:
    from axes.models import AccessAttempt

    return [repr(row) for row in AccessAttempt.objects.values_list()]


def forged(i: int) -> dict:
    """Headers of the i-th guess: a new X-Forwarded-For chain and a new User-Agent each time."""
    return {"HTTP_X_FORWARDED_FOR": f"203.0.113.{i % 250 + 1}, 10.{i}.0.1",
            "HTTP_USER_AGENT": f"guesser/{i}"}


def token(username: str, password: str, **extra):
    return client_for(None).post("/api/auth/token/", {"username": username, "password": password},
                                 format="json", **extra)


@pytest.mark.parametrize("proxies", [0, 1])
def test_api_token_guessing_with_rotating_forwarded_for_is_stopped_per_account(
        player, other_player, settings, proxies):
    trusted_proxies(settings, proxies)
    before = database_state()
    codes = [token("ada", f"guess-{i}", **forged(i)).status_code for i in range(3 * LIMIT)]
    # Behind a trusted proxy every guess comes from another client: only the account's count stops it.
    assert codes == [400] * (LIMIT - 1) + [429] * (2 * LIMIT + 1)

    # The right password, during the lockout, from yet another address: refused, and no token made.
    answer = token("ada", "lovelace-1815", REMOTE_ADDR="198.51.100.7", **forged(99))
    assert answer.status_code == 429, answer.content
    assert "token" not in answer.json() and "too many failed logins" in str(answer.json())
    assert answer.headers["Retry-After"]

    # Only that account is locked: Grace, from an address that guessed nothing, logs in.
    assert token("grace", "hopper-1906", REMOTE_ADDR="198.51.100.8").status_code == 200
    assert database_state() == before  # no token, password change or login of Ada's; Grace's token existed
    assert not any("guess-" in row or "lovelace" in row for row in failure_rows())  # no password kept


def test_api_token_guessing_locks_the_address_for_other_accounts_too(player, other_player, settings):
    """Without trusted proxies every guess above came from one address: it is locked for any account."""
    for i in range(LIMIT):
        token(f"someone-{i}", "guess", **forged(i))  # one guess per account, none reaches the account limit
    assert token("grace", "hopper-1906", **forged(50)).status_code == 429
    assert token("grace", "hopper-1906", REMOTE_ADDR="198.51.100.8").status_code == 200


def test_admin_login_guessing_with_rotating_forwarded_for_is_stopped(admin_user, settings):
    browser = Client()
    before = database_state()
    codes = [browser.post("/admin/login/", {"username": "root", "password": f"guess-{i}"}, **forged(i)).status_code
             for i in range(2 * LIMIT)]
    assert codes == [200] * (LIMIT - 1) + [429] * (LIMIT + 1)  # 200: the form again, with its error

    answer = browser.post("/admin/login/", {"username": "root", "password": "operator-pass-1"},
                          REMOTE_ADDR="198.51.100.7", **forged(99))
    assert answer.status_code == 429
    assert browser.get("/admin/").status_code == 302  # still sent to the login page: not logged in
    assert database_state() == before  # no session, no last_login
    assert not any("guess-" in row or "operator-pass" in row for row in failure_rows())


def test_the_throttle_ignores_forwarded_for_without_trusted_proxies(player, settings):
    throttle_rates(settings, auth="3/hour")
    codes = [token(f"nobody-{i}", "x", **forged(i)).status_code for i in range(4)]
    assert codes == [400, 400, 400, 429]
    # Another real address still gets in.
    assert token("ada", "lovelace-1815", REMOTE_ADDR="198.51.100.8").status_code == 200


def test_the_throttle_counts_the_entry_the_trusted_proxy_appended(player, settings):
    trusted_proxies(settings, 1)
    throttle_rates(settings, auth="3/hour")
    # The client writes whatever it likes left of our proxy's entry: one client all the same.
    same_client = [token(f"nobody-{i}", "x", HTTP_X_FORWARDED_FOR=f"10.0.0.{i}, 192.0.2.44").status_code
                   for i in range(4)]
    assert same_client == [400, 400, 400, 429]
    # Other clients, as the proxy saw them, are counted apart.
    others = [token(f"nobody-{i}", "x", HTTP_X_FORWARDED_FOR=f"192.0.2.{i}").status_code for i in range(1, 4)]
    assert others == [400, 400, 400]


def test_a_forwarded_entry_that_is_no_address_falls_back_to_remote_addr(player, settings):
    """Two proxies configured where there is one: the entry taken is the client's own text."""
    trusted_proxies(settings, 2)
    answers = [token("ada", "wrong", HTTP_X_FORWARDED_FOR=f"not-an-address-{i}, 192.0.2.44") for i in range(LIMIT)]
    assert [a.status_code for a in answers] == [400] * (LIMIT - 1) + [429]
    assert token("grace", "hopper-1906", HTTP_X_FORWARDED_FOR="another, 192.0.2.45").status_code == 429  # the
    # address locked is REMOTE_ADDR's, so the invented entries never opened a fresh count


def test_trusted_proxy_count_comes_from_the_environment():
    def num_proxies(**env) -> str:
        environment = {k: v for k, v in os.environ.items() if k != "TRUSTED_PROXY_COUNT"} | env
        code = "import config.settings as s; print(s.REST_FRAMEWORK['NUM_PROXIES'], s.AXES_CLIENT_IP_CALLABLE)"
        return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True,
                              text=True, timeout=60).stdout.strip()

    assert num_proxies() == "0 api.throttles.client_address"
    assert num_proxies(TRUSTED_PROXY_COUNT="1").startswith("1 ")
