"""Data for the page tests (a league of bots with finished matches, from tests.support) and a real browser."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.support import (  # noqa: F401  (BOTS, random_record: still importable from here, as before)
    BOTS,
    GENEROUS,
    finished_match,
    make_bot,
    pass_smoke_test,
    random_record,
    ready_version,
    throttle_rates,
)

finish = finished_match  # the old name, for tests written on other branches
KITS = Path(__file__).resolve().parents[2] / "seeds" / "bots"


@pytest.fixture(autouse=True)
def _site(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast, tests only
    throttle_rates(settings, **GENEROUS)  # the site shares the API's throttles; their own tests set them lower
    settings.ARENA = {**settings.ARENA, "SANDBOX_TRUSTED": shutil.which("bwrap") is None,
                      "SMOKE_TEST_STARTUP_SECONDS": 5, "SMOKE_TEST_MOVE_SECONDS": 5}
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def league(player, other_player):
    """Ada's two public tafl9 bots and Grace's one, a private bot of Grace's, and rated matches between them."""
    alpha = ready_version(make_bot(player, "alpha", description="Plays fast."))
    beta = ready_version(make_bot(other_player, "beta"))
    gamma = ready_version(make_bot(player, "gamma"))
    secret = ready_version(make_bot(other_player, "secret", is_public=False))
    matches = [finished_match(alpha, beta, seed=1), finished_match(beta, gamma, seed=2),
               finished_match(alpha, gamma, seed=3), finished_match(secret, alpha, seed=4, rated=False)]
    return {"alpha": alpha, "beta": beta, "gamma": gamma, "secret": secret, "matches": matches}


# --- a real browser -------------------------------------------------------------------------------

CHROMIUM = "/usr/bin/chromium"  # Debian's (scripts/install-system-deps.sh): Playwright cannot download its own here
# Kept by CI. Under pytest-xdist each worker keeps its own folder: clearing one never deletes another's pictures.
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots" / os.environ.get("PYTEST_XDIST_WORKER", "")
SERIOUS = ("serious", "critical")


def need_browser():
    """Playwright and Debian's chromium: skipped on a laptop without them, a failure in CI."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        problem = f"playwright is not installed ({error})"
    else:
        problem = None if Path(CHROMIUM).exists() else f"{CHROMIUM} is missing (apt-get install chromium)"
        if problem is None:
            return sync_playwright
    if os.environ.get("CI"):
        pytest.fail(f"the browser tests must run in CI: {problem}")
    pytest.skip(f"browser tests skipped: {problem}")


@pytest.fixture(scope="session")
def browser():
    sync_playwright = need_browser()
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)  # this run's pictures only
    # Playwright's sync API runs an event loop in this thread; the test's own ORM calls are still plain sync calls.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


class Site:
    """A browser tab on the live server that keeps what a person would notice: console errors, failed scripts,
    and whether axe-core finds a serious accessibility violation on a page."""

    def __init__(self, page, base_url: str, name: str):
        self.page, self.base_url, self.name = page, base_url, name
        self.errors: list[str] = []
        self.shots = 0
        page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))

    def open(self, path: str):
        response = self.page.goto(self.base_url + path)
        assert response is not None and response.status == 200, (path, response and response.status)
        return response

    def check(self, label: str) -> None:
        """No serious accessibility violation on the page as it is now; a screenshot of it for CI."""
        from axe_playwright_python.sync_playwright import Axe

        violations = [v for v in Axe().run(self.page).response["violations"] if v["impact"] in SERIOUS]
        self.screenshot(label)
        assert not violations, [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in violations]

    def screenshot(self, label: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.shots += 1
        self.page.screenshot(path=str(SCREENSHOTS / f"{self.name}-{self.shots:02}-{label}.png"), full_page=True)

    def forgive(self, status: str) -> None:
        """Drop the console's note of a page answered with ``status`` on purpose (a refused form is a 400)."""
        self.errors = [error for error in self.errors if f"status of {status}" not in error]

    def login(self, username: str, password: str) -> None:
        self.open("/account/login/")
        self.page.fill("#id_username", username)
        self.page.fill("#id_password", password)
        self.page.click("form.form button[type=submit]")
        self.page.wait_for_url(self.base_url + "/")


@pytest.fixture
def site(browser, live_server, request):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = Site(context.new_page(), live_server.url, request.node.name.replace("[", "-").rstrip("]"))
    yield tab
    tab.screenshot("end")
    context.close()
    assert not tab.errors, tab.errors  # no page logged a console error


def kit_version(owner, kit: str, name: str | None = None, ready: bool = True):
    """A bot of the kit's game with the starter kit (seeds/bots/<kit>) as its version, as the upload form takes it."""
    from tournaments.services import upload_version
    from web.starters import kit_zip

    game = kit.rsplit("-", 1)[0]
    version = upload_version(make_bot(owner, name or kit, game), SimpleUploadedFile(f"{kit}.zip", kit_zip(kit)))
    return pass_smoke_test(version) if ready else version


def play_real_match(version_a, version_b, *, games: int = 1, time_control: str = "move:200", rated: bool = True):
    """A match played through the sandbox by the real runner, as a worker plays it."""
    from tests.playing import play
    from tournaments.services import create_match

    match = create_match(version_a, version_b, rated=rated, games=games, time_control=time_control)
    return play(match.pk, "browser-test")
