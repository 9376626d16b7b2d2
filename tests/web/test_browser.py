"""The site in a real browser (Playwright driving Debian's chromium) on a live server, with matches played by
the real runner in the sandbox. Every page visited is checked with axe-core and photographed into
var/screenshots/, and no page may log a console error (the ``site`` fixture)."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model

from engines import GAME_IDS, get_game
from play.referee import play_game
from ratings.models import Rating
from tests.support import BOTS, ready_version
from tournaments.models import Game
from tournaments.services import create_tournament
from tournaments.services.matches import MatchPlan
from tournaments.services.ratings import fit_ratings
from web.boards import cells

from .conftest import kit_version, play_real_match

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

BUDGET = 150 * 1024  # the game page's first load, the record aside


def board_pieces(page) -> dict[str, str]:
    """What the viewer shows: the piece on each point of the board, read from its data attributes."""
    pairs = page.eval_on_selector_all(
        "[data-replay] [data-point]", "els => els.map(e => [e.dataset.point, e.dataset.piece || ''])")
    return {point: piece for point, piece in pairs if piece}


def referee_pieces(record: dict, ply: int) -> dict[str, str]:
    """The pieces of the referee's own position after ``ply`` actions of the record."""
    position = get_game(record["game"]).parse(record["initial"])
    for action in record["actions"][:ply]:
        position = position.play(action)
    return cells(position)


def shown_ply(page) -> int:
    return int(page.eval_on_selector("[data-replay-slider]", "el => el.value"))


def test_home_leaderboard_and_bot_page_show_a_played_match(site, player, other_player):
    search = kit_version(player, "tafl9-search")
    greedy = kit_version(other_player, "tafl9-greedy")
    match = play_real_match(search, greedy, games=2)
    assert match.status == "finished"
    fit_ratings(["tafl9"])  # what the refit after a rated match does
    ratings = {r.bot.name: r for r in Rating.objects.select_related("bot")}

    site.open("/")
    for name in ("tafl9-search", "tafl9-greedy"):
        assert site.page.locator(".card", has_text="Tafl 9×9").get_by_text(name).count() == 1
    assert site.page.locator(f'a[href="/matches/{match.pk}/"]').count() == 1
    site.check("home")

    site.open("/leaderboard/tafl9/")
    # two games leave both intervals wide: listed apart as provisional, never ranked
    assert site.page.locator("table[data-part=ranked]").count() == 0
    rows = site.page.locator("table[data-part=provisional] tbody tr")
    assert rows.count() == 2
    first = ratings[rows.nth(0).locator("td").nth(0).locator("a").inner_text()]
    assert rows.nth(0).get_attribute("data-standing") == "provisional"
    assert rows.nth(0).locator("td").nth(4).inner_text() == f"{first.elo:.0f}"  # the live Elo
    assert rows.nth(0).locator("td").nth(5).inner_text() == "2"  # games
    site.check("leaderboard")

    site.open(f"/bots/{search.bot_id}/")
    assert site.page.locator("[data-rating]").get_attribute("data-rating") == f"{ratings['tafl9-search'].elo:.1f}"
    assert site.page.locator("svg.chart polyline").count() == 1
    assert site.page.locator('[data-version="1"]').get_attribute("data-status") == "ready"
    assert site.page.locator("section[aria-labelledby=recent] tbody tr").count() == 2
    site.check("bot")

    site.page.locator("section[aria-labelledby=recent] tbody a").first.click()
    site.page.wait_for_selector("[data-replay] [data-point]")
    site.check("game")


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_replay_viewer_shows_the_referees_position_at_every_chosen_ply(site, player, other_player, game_id):
    white = kit_version(player, f"{game_id}-random", "white-bot")
    black = kit_version(other_player, f"{game_id}-random", "black-bot")
    match = play_real_match(white, black, games=1, time_control="move:100", rated=False)
    game = Game.objects.get(match=match)
    record, last = game.record, game.plies
    assert last >= 2, record["reason"]

    sizes = []
    site.page.on("response", lambda response: sizes.append(len(response.body())) if response.ok else None)
    site.open(f"/games/{game.pk}/")
    site.page.wait_for_selector("[data-replay] [data-point]")
    embedded = len(site.page.eval_on_selector("#replay-data", "el => el.textContent").encode())
    assert sum(sizes) - embedded <= BUDGET, (sum(sizes), embedded)

    assert shown_ply(site.page) == last  # a finished game opens on its end
    assert board_pieces(site.page) == referee_pieces(record, last)
    for ply in sorted({0, 1, last // 3, last // 2, (2 * last) // 3, last - 1}):
        site.page.fill("[data-replay-slider]", str(ply))
        assert shown_ply(site.page) == ply
        assert board_pieces(site.page) == referee_pieces(record, ply), f"ply {ply} of {last}"
    site.check(f"ply-{last - 1}")


def test_keyboard_steps_through_the_replay(site, player, other_player):
    white = kit_version(player, "tafl9-random", "white-bot")
    black = kit_version(other_player, "tafl9-random", "black-bot")
    game = Game.objects.get(match=play_real_match(white, black, games=1, time_control="move:100", rated=False))
    record, last = game.record, game.plies
    site.open(f"/games/{game.pk}/")
    site.page.wait_for_selector("[data-replay] [data-point]")
    site.page.focus("[data-replay]")
    expected = [("Home", 0), ("ArrowRight", 1), ("ArrowRight", 2), ("ArrowLeft", 1), ("End", last),
                ("ArrowLeft", last - 1)]
    for key, ply in expected:
        site.page.keyboard.press(key)
        assert shown_ply(site.page) == ply, key
        assert board_pieces(site.page) == referee_pieces(record, ply), key
    assert f"Ply {last - 1} of {last}" in site.page.inner_text("[data-replay-status]")


def test_a_new_player_uploads_a_bot_through_the_form_and_sees_it_become_ready(site, db, monkeypatch):
    from config.celery import app

    monkeypatch.setattr(app.conf, "task_always_eager", True)  # the smoke test runs as the upload commits

    site.open("/account/register/")
    site.page.fill("#id_username", "newcomer")
    site.page.fill("#id_password", "a-long-pass-42")
    site.check("register")
    site.page.click("form.form button[type=submit]")
    site.page.wait_for_url("**/bots/new/")

    site.page.fill("#id_name", "")  # the server refuses, and says so beside the field
    site.page.click("form.form button[type=submit]")
    assert "This field is required." in site.page.inner_text("#id_name_error")
    site.forgive("400")  # the refused form comes back as a 400: the browser logs that, on purpose here
    site.check("bot-form-error")
    site.page.select_option("#id_game", "tafl9")
    site.page.fill("#id_name", "first-try")
    site.page.fill("#id_description", "My first bot.")
    site.page.click("form.form button[type=submit]")
    site.page.wait_for_selector("h1:has-text('first-try')")

    site.page.set_input_files("#id_file", str(BOTS / "random_bot.py"))
    site.page.click("form.upload button[type=submit]")
    site.page.wait_for_selector('[data-version="1"]')
    for _ in range(60):
        if site.page.get_attribute('[data-version="1"]', "data-status") != "pending":
            break
        site.page.wait_for_timeout(500)
        site.page.reload()
    assert site.page.get_attribute('[data-version="1"]', "data-status") == "ready"
    site.check("uploaded")

    site.page.set_input_files("#id_file", {"name": "bad.py", "mimeType": "text/x-python", "buffer": b"def (:\n"})
    site.page.click("form.upload button[type=submit]")
    assert "does not compile" in site.page.inner_text("#id_file_error")
    assert site.page.locator("[data-version]").count() == 1
    site.forgive("400")
    site.check("upload-refused")


def test_a_live_game_page_advances_while_the_game_is_played(site, player, other_player, tmp_path):
    """The worker's part runs in a thread: the runner plays game 1 in the sandbox and publishes every ply, while
    the browser watches the live page; then the match is finished as a worker finishes it."""
    import io
    import zipfile

    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.support import make_bot, pass_smoke_test
    from tournaments import referee
    from tournaments.models import BotVersion
    from tournaments.services import claim_match, create_match, finish_match, upload_version

    versions = []
    for owner, name in ((player, "slow-white"), (other_player, "slow-black")):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("flexbot.py", (BOTS / "flexbot.py").read_bytes())
            archive.writestr("bot.toml", 'run = "python3 flexbot.py slow:120"\n')
        version = upload_version(make_bot(owner, name), SimpleUploadedFile("bot.zip", buffer.getvalue()))
        pass_smoke_test(version)
        versions.append(BotVersion.objects.select_related("bot").get(pk=version.pk))
    match = create_match(*versions, games=1, time_control="move:2000", rated=False)
    token = claim_match(match.pk, "browser-test")
    match.refresh_from_db()
    bots = [referee.load_version(version) for version in versions]
    sandbox = referee.open_sandbox()
    played = {}
    plan = MatchPlan.of(match)
    worker = threading.Thread(target=lambda: played.update(record=play_game(plan, 1, *bots, sandbox)))
    worker.start()
    try:
        site.open(f"/matches/{match.pk}/live/")
        site.page.wait_for_selector("[data-replay] [data-point]")
        assert site.page.locator(".replay-live").count() == 1
        start = shown_ply(site.page)
        slider_reaches(site.page, ">=", start + 3, 30)
        site.check("live")
        site.page.focus("[data-replay]")
        site.page.keyboard.press("ArrowLeft")  # stop following the game, to compare a still board
        seen = shown_ply(site.page)
        live_so_far = {"game": "tafl9", "initial": get_game("tafl9").initial().text(), "actions": _live_actions(match)}
        assert board_pieces(site.page) == referee_pieces(live_so_far, seen)
        site.page.keyboard.press("End")  # follow it again
    finally:
        worker.join(120)
    record = played["record"]
    # once the game is over the viewer is its whole replay, the result shown
    slider_reaches(site.page, "max", record["plies"], 15)
    site.page.wait_for_selector(".replay-live", state="detached", timeout=15000)
    assert shown_ply(site.page) == record["plies"]
    assert board_pieces(site.page) == referee_pieces(record, record["plies"])
    assert finish_match(match.pk, token, [record])
    site.check("live-over")


def slider_reaches(page, test: str, value: int, seconds: float) -> None:
    """Waits until the replay slider's value is at least ``value`` (test ">=") or its max is ``value`` ("max").
    Polled from here: Playwright's wait_for_function evaluates its predicate with eval(), which the site's
    Content-Security-Policy refuses, as it should."""
    import time

    script = ("el => Number(el.value)" if test == ">=" else "el => Number(el.max)")
    deadline = time.monotonic() + seconds
    while True:
        now = page.eval_on_selector("[data-replay-slider]", script)
        if (now >= value) if test == ">=" else (now == value):
            return
        assert time.monotonic() < deadline, f"the slider's {test} is {now}, not {value}"
        page.wait_for_timeout(100)


def _live_actions(match) -> list[str]:
    from play import live

    return live.game(match.pk, 1)["actions"]


def test_every_other_page_passes_the_accessibility_check(site, league, player):
    from tests.support import random_record
    from tournaments.services import add_entrant, claim_match, finish_match, start_tournament

    cup = create_tournament(player, name="Winter cup", game="tafl9", time_control="move:100")
    for key in ("alpha", "beta", "gamma"):
        add_entrant(cup, league[key])
    start_tournament(cup)
    first = cup.matches.order_by("id").first()
    finish_match(first.pk, claim_match(first.pk, "w"), [random_record("tafl9", n) for n in range(2)])
    draft = create_tournament(player, name="Spring cup", game="tafl9", time_control="move:100")
    pages = [("tournament", f"/tournaments/{cup.pk}/"), ("tournaments", "/tournaments/"),
             ("match", f"/matches/{first.pk}/"), ("player", "/players/ada/"), ("take-part", "/take-part/"),
             ("protocol", "/take-part/protocol/"), ("login", "/account/login/"),
             ("leaderboard-by-games", "/leaderboard/tafl9/?sort=games"), ("empty-leaderboard", "/leaderboard/shatra/")]
    for label, url in pages:
        site.open(url)
        site.check(label)
    site.page.goto(site.base_url + "/bots/999999/")
    site.forgive("404")  # the not-found page answers 404, on purpose
    assert site.page.inner_text("h1") == "Not found"
    site.check("not-found")
    site.login("ada", "lovelace-1815")
    for label, url in [("organiser-draft", f"/tournaments/{draft.pk}/"), ("new-bot", "/bots/new/"),
                       ("new-tournament", "/tournaments/new/"), ("own-bot", f"/bots/{league['alpha'].bot_id}/")]:
        site.open(url)
        site.check(label)
    site.open(f"/tournaments/{draft.pk}/")  # the organiser enters a bot, then starts the tournament
    site.page.select_option("#id_version", str(league["beta"].pk))
    site.page.click("button[value=add]")
    site.page.wait_for_selector("text=beta")
    site.page.select_option("#id_version", str(league["gamma"].pk))
    site.page.click("button[value=add]")
    site.page.click("button[value=start]")
    site.page.wait_for_selector(".status.running")
    assert site.page.locator("section[aria-labelledby=matches] tbody tr").count() == 2
    site.check("started")
    newer = ready_version(league["alpha"].bot)  # the owner tests a new version from the bot page, then stops it
    site.open(f"/bots/{league['alpha'].bot_id}/")
    site.page.select_option("#id_version", str(newer.pk))
    site.page.fill("#id_elo1", "5")
    site.page.click("button[value=sprt]")
    site.page.wait_for_selector("[data-sprt][data-state=running]")
    site.check("own-bot-sprt")
    site.page.click("button[value=stop-sprt]")
    site.page.wait_for_selector("[data-sprt][data-state=stopped]")
    assert site.page.locator("button[value=stop-sprt]").count() == 0


def contrast(first: str, second: str) -> float:
    """WCAG's contrast ratio of two CSS colours given as ``rgb(r, g, b)``: 1 (the same) to 21."""
    def luminance(colour: str) -> float:
        channels = [int(c) / 255 for c in colour[colour.index("(") + 1:colour.index(")")].split(",")[:3]]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_content_security_policy_holds_on_every_page_and_refuses_an_injected_script(site, league, player):
    """Issue 18: every page carries the policy and runs under it with no violation in the console (the ``site``
    fixture fails on any console error, and Chromium reports each refused script or style as one); a script
    injected inline is refused, and that is seen in the console."""
    pages = ["/", "/leaderboard/tafl9/", f"/bots/{league['alpha'].bot_id}/", "/tournaments/", "/take-part/",
             "/take-part/protocol/", "/account/login/", "/account/register/", "/players/ada/", "/api/",
             "/admin/login/"]
    for path in pages:
        response = site.open(path)
        assert "script-src 'self'" in response.headers["content-security-policy"], path
        site.forgive("404")  # the browsable API has no favicon link: the browser asks for /favicon.ico
        assert not site.errors, (path, site.errors)
    get_user_model().objects.create_superuser("operator", password="operator-pass-phrase-1")
    site.login("operator", "operator-pass-phrase-1")
    for path in ("/admin/", "/admin/dashboard/"):  # the operators' pages run under the same policy
        site.open(path)
        site.forgive("404")
        assert not site.errors, (path, site.errors)
        if path == "/admin/":  # the dashboard's link is seen: it stands out from its bar (issue 21)
            colours = site.page.evaluate("""() => {
                const link = document.querySelector('#arena-dashboard-link h2 a');
                const bar = getComputedStyle(link.parentElement).backgroundColor;
                return [getComputedStyle(link).color, bar, link.getBoundingClientRect().width]; }""")
            assert contrast(colours[0], colours[1]) >= 3 and colours[2] > 50, colours
    site.page.evaluate("() => { const s = document.createElement('script'); s.textContent = 'window.injected = 1';"
                       " document.head.appendChild(s); }")
    site.page.wait_for_timeout(200)
    assert site.page.evaluate("() => window.injected") is None
    assert any("Content Security Policy" in error for error in site.errors), site.errors
    site.errors = [error for error in site.errors if "Content Security Policy" not in error]
    site.forgive("404")  # a late /favicon.ico of the last page
