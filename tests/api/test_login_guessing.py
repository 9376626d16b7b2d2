"""Password guessing through POST /api/auth/token/, the site's login form and /admin/login/: stopped per
(account, address) and per address, so the right password is refused from a guessing address and accepted from
the owner's own; nothing changed but the failure counts. And the client address behind it: X-Forwarded-For only
counts behind trusted proxies (TRUSTED_PROXY_COUNT, REST_FRAMEWORK NUM_PROXIES)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.apps import apps
from django.test import Client

from tests.support import throttle_rates

from .conftest import client_for

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


ATTACKER, OWNER = "203.0.113.66", "198.51.100.7"


def site_login(browser: Client, username: str, password: str, **extra):
    return browser.post("/account/login/", {"username": username, "password": password}, **extra)


def admin_login(browser: Client, username: str, password: str, **extra):
    return browser.post("/admin/login/", {"username": username, "password": password}, **extra)


@pytest.mark.parametrize("door", ["api", "site", "admin"])
def test_guesses_from_elsewhere_never_lock_the_owner_out(player, admin_user, door):
    """The attack of issue 18: wrong passwords for an account, the admin's included, from one address. They lock
    that address (for that account and any other); the owner, from their own address, logs in at once."""
    name, password = ("root", "operator-pass-1") if door == "admin" else ("ada", "lovelace-1815")
    attacker = Client(REMOTE_ADDR=ATTACKER)
    guess = {"api": lambda i: token(name, f"guess-{i}", REMOTE_ADDR=ATTACKER),
             "site": lambda i: site_login(attacker, name, f"guess-{i}"),
             "admin": lambda i: admin_login(attacker, name, f"guess-{i}")}[door]
    wrong = 400 if door == "api" else 200  # the site and the admin show their form again, with its error
    before = database_state()
    codes = [guess(i).status_code for i in range(2 * LIMIT)]  # and it keeps guessing while locked
    assert codes == [wrong] * (LIMIT - 1) + [429] * (LIMIT + 1)

    # The right password from the attacker's address is refused, and says why, on every door.
    refused = {"api": lambda: token(name, password, REMOTE_ADDR=ATTACKER),
               "site": lambda: site_login(attacker, name, password),
               "admin": lambda: admin_login(attacker, name, password)}[door]()
    assert refused.status_code == 429
    assert "too many failed logins" in refused.content.decode()
    assert database_state() == before  # no session, no token, no last_login

    # The owner, from their own address, on the same door: in.
    owner = Client(REMOTE_ADDR=OWNER)
    if door == "api":
        assert token(name, password, REMOTE_ADDR=OWNER).status_code == 200
    elif door == "site":
        assert site_login(owner, name, password).status_code == 302
        assert owner.get("/bots/new/").status_code == 200  # signed in
    else:
        assert admin_login(owner, name, password).status_code == 302
        assert owner.get("/admin/").status_code == 200
    assert not any("guess-" in row or password in row for row in failure_rows())  # no password kept


@pytest.mark.parametrize("proxies", [0, 1])
@pytest.mark.slow
def test_rotating_forwarded_for_gains_nothing(player, other_player, settings, proxies):
    """Without trusted proxies the forged X-Forwarded-For is ignored: one address, locked. Behind one, each guess
    really comes from another client as far as we can tell, and each address has its own count: the owner's
    address is never among them."""
    trusted_proxies(settings, proxies)
    codes = [token("ada", f"guess-{i}", **forged(i)).status_code for i in range(2 * LIMIT)]
    assert codes == ([400] * (LIMIT - 1) + [429] * (LIMIT + 1) if proxies == 0 else [400] * (2 * LIMIT))
    assert token("ada", "lovelace-1815", REMOTE_ADDR=OWNER).status_code == 200


def test_api_token_guessing_locks_the_address_for_other_accounts_too(player, other_player, settings):
    """Without trusted proxies every guess above came from one address: it is locked for any account."""
    for i in range(LIMIT):
        token(f"someone-{i}", "guess", **forged(i))  # one guess per account, none reaches the account limit
    assert token("grace", "hopper-1906", **forged(50)).status_code == 429
    assert token("grace", "hopper-1906", REMOTE_ADDR="198.51.100.8").status_code == 200


def test_the_throttle_ignores_forwarded_for_without_trusted_proxies(player, settings):
    throttle_rates(settings, token="3/hour")
    codes = [token(f"nobody-{i}", "x", **forged(i)).status_code for i in range(4)]
    assert codes == [400, 400, 400, 429]
    # Another real address still gets in.
    assert token("ada", "lovelace-1815", REMOTE_ADDR="198.51.100.8").status_code == 200


def test_the_throttle_counts_the_entry_the_trusted_proxy_appended(player, settings):
    trusted_proxies(settings, 1)
    throttle_rates(settings, token="3/hour")
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
