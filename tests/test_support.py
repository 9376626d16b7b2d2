"""tests.support builds only states the services produce: its ready version is what a passing smoke test leaves,
its finished match what a worker's report leaves (games, score, rating changes)."""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest

from ratings.models import Rating, RatingChange
from tests.support import finished_match, make_bot, pass_smoke_test, ready_version, scored, upload
from tournaments.models import BotVersion, Match
from tournaments.services import smoke_test_version

pytestmark = pytest.mark.django_db

UNLIKE = {"id", "bot", "number", "file", "original", "uploaded_at", "checked_at"}  # the row's own, or a time


def judged(version: BotVersion) -> dict:
    return {field.name: getattr(version, field.name) for field in BotVersion._meta.concrete_fields
            if field.name not in UNLIKE}


def test_a_ready_version_is_what_a_passing_smoke_test_leaves(player, django_capture_on_commit_callbacks):
    smoked = upload(make_bot(player, "smoked"))
    with django_capture_on_commit_callbacks() as smoke_events:
        smoked = smoke_test_version(smoked.pk, trusted=shutil.which("bwrap") is None)
    pending = upload(make_bot(player, "helped"))
    with django_capture_on_commit_callbacks() as helper_events:
        helped = pass_smoke_test(pending)
    assert smoked.status == BotVersion.Status.READY, smoked.reject_reason
    assert judged(helped) == judged(smoked)
    assert helped.checked_at is not None and smoked.checked_at is not None
    assert len(helper_events) == len(smoke_events) == 1  # the pages are told (events.VersionJudged)


def test_a_finished_match_is_scored_and_rated_as_a_reported_one(player, other_player):
    a, b = ready_version(make_bot(player, "alpha")), ready_version(make_bot(other_player, "beta"))
    match = finished_match(a, b, ["white", "white", "none"])  # A won game 1 (white), lost game 2 (black)
    assert (match.status, match.score_a, match.score_b) == (Match.Status.FINISHED, 1.5, 1.5)
    assert match.games.count() == 3 and RatingChange.objects.filter(played__match=match).count() == 6
    assert Rating.objects.get(bot=a.bot).games == 3
    replayable = finished_match(b, a, seed=7)
    assert all(game.record["actions"] for game in replayable.games.all())  # the referee's random play


def test_scored_gives_version_a_the_results_asked_for_with_colours_alternating(player, other_player):
    a, b = ready_version(make_bot(player, "alpha")), ready_version(make_bot(other_player, "beta"))
    match = scored(a, b, wins=2, draws=1, losses=2)
    assert (match.score_a, match.score_b) == (2.5, 2.5)
    assert [game.white_id for game in match.games.order_by("number")] == [a.pk, b.pk, a.pk, b.pk, a.pk]
    rating = Rating.objects.get(bot=a.bot)
    assert (rating.wins, rating.draws, rating.losses) == (2, 1, 2)
    assert [game.winner for game in match.games.order_by("number")] == ["white", "black", "none", "white", "black"]


# --- the guard: no test writes a state the services cannot produce, unseen ----------------------------------------

TESTS = Path(__file__).resolve().parent
WRITES = {"create", "bulk_create", "update", "update_or_create", "get_or_create", "delete", "bulk_update"}
# The reasons a test may write rows itself; each write carries one as `# state: <reason>` on its statement, on
# the comment lines just above it, its function's line or the comment line just above that function.
REASONS = {
    "constraint": "the database's own refusals are the subject (no service would try the row)",
    "migration": "historical models of a migration test, which have no services",
    "time passes": "only a timestamp moves (a lease expires, a fit grows old): what waiting would do",
    "bulk": "many rows where the services would take minutes; the shape is one the services make",
    "damaged": "a row as damage or an older release leaves it, to show the code copes",
    "checked": "a helper that tests/test_support.py checks against the service it stands for",
    "admin": "what the Django admin's form does to a row (it saves the model; no service in between)",
    "unsignalled": "a change made past the model's signals (a bulk update), to show a cache does not lean on them",
}
MARKER = re.compile(r"#\s*state:\s*([a-z ]+?)\s*(?:[:;(,—-]|$)")


def writes_rows(call: ast.Call) -> bool:
    """``Model.objects...create/update/delete(...)``, ``instance.save(...)`` (not a file field's) or SQL that
    changes rows."""
    name, receiver = call.func.attr, ast.unparse(call.func.value)
    sql = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else None
    return ((name in WRITES and re.search(r"\.objects\b", receiver) is not None)
            or (name == "save" and not receiver.endswith("file"))
            or (name == "execute" and isinstance(sql, str) and re.match(r"\s*(INSERT|UPDATE|DELETE)\b", sql, re.I)))


def direct_writes(tree: ast.AST) -> list[int]:
    """The lines that write rows past the services."""
    return sorted({node.lineno for node in ast.walk(tree)
                   if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and writes_rows(node)})


def unmarked_writes(source: str) -> list[int]:
    """The direct writes of ``source`` that carry no known ``# state:`` reason on their statement, nor on the header
    of a function around them."""
    lines, tree = source.splitlines(), ast.parse(source)
    simple = [node for node in ast.walk(tree) if isinstance(node, ast.stmt) and not hasattr(node, "body")]
    functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]

    def marked(first: int, last: int) -> bool:
        return any((found := MARKER.search(text)) and found.group(1) in REASONS
                   for text in lines[max(first, 1) - 1:last])

    def on_statement(line: int) -> bool:  # its lines, or the comment lines just above it
        spans = [(node.lineno, node.end_lineno) for node in simple if node.lineno <= line <= node.end_lineno]
        first, last = min(spans, key=lambda span: span[1] - span[0], default=(line, line))
        while first > 1 and lines[first - 2].lstrip().startswith("#"):
            first -= 1
        return marked(first, last)

    def on_function(line: int) -> bool:  # from the comment line above its decorators to the line before its body
        return any(marked(min([f.lineno] + [d.lineno for d in f.decorator_list]) - 1, f.body[0].lineno - 1)
                   for f in functions if f.lineno <= line <= f.end_lineno)

    return [line for line in direct_writes(tree) if not on_statement(line) and not on_function(line)]


def test_the_guard_sees_a_direct_write_and_its_reason():
    planted = ('def test_x(match):\n'
               '    Match.objects.filter(pk=match.pk).update(status="finished")\n'
               '    Game.objects.create(match=match, number=1,\n'
               '                        winner="white")\n'
               '    match.save()\n'
               '    version.file.save("b.py", content)\n'
               '    played.update(winner="white")\n'
               '    cursor.execute("UPDATE tournaments_match SET status = %s", ["finished"])\n')
    assert unmarked_writes(planted) == [2, 3, 5, 8]  # a record's dict and a file field are no rows
    assert unmarked_writes(planted.replace('winner="white")\n', 'winner="white")  # state: damaged\n', 1)) == [2, 5, 8]
    assert unmarked_writes(planted.replace('"finished")', '"finished")  # state: because')) == [2, 3, 5, 8]  # unknown
    assert unmarked_writes("# state: bulk, thousands of rows\n" + planted) == []
    above = planted.replace("    match.save()", "    # state: admin (its form)\n    match.save()")
    assert unmarked_writes(above) == [2, 3, 9]  # a comment line just above counts
    assert unmarked_writes(planted.replace("def test_x(match):", "def test_x(match):  # state: constraint")) == []


def test_no_test_writes_a_state_past_the_services_unmarked():
    unmarked = {str(path.relative_to(TESTS)): unmarked_writes(path.read_text()) for path in sorted(TESTS.rglob("*.py"))}
    found = [f"{path}:{line}" for path, lines in unmarked.items() for line in lines]
    assert not found, ("direct writes of rows, without a `# state: <reason>` (tests/test_support.py REASONS); "
                       "build the state through the services or tests/support instead: " + ", ".join(found))
