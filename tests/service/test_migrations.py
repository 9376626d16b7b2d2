"""Migration 0004: a stored game's ``duration`` held the sum of both bots' thinking times, not the wall-clock
time it claimed to be; after the migration no old game claims a figure nobody measured."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tournaments.names import name_key

BEFORE = [("tournaments", "0002_bot_names_and_tournament_consent")]
AFTER = [("tournaments", "0004_bot_lifecycle_and_game_times")]


@pytest.fixture(autouse=True)
def latest_schema_after():
    """Every app back at its latest migration after each test: going back to an old state of tournaments also
    unapplies the migrations of other apps that depend on a later one (ratings), and the rest of the suite,
    the browser tests' live server included, needs the latest schema."""
    yield
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


# state: migration (the historical models of the migration under test, which no service writes)
@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_old_durations_are_forgotten_and_old_versions_have_nothing_to_download():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    User = old.get_model("auth", "User")
    Bot, BotVersion = old.get_model("tournaments", "Bot"), old.get_model("tournaments", "BotVersion")
    Match, Game = old.get_model("tournaments", "Match"), old.get_model("tournaments", "Game")
    owner = User.objects.create(username="old-timer")
    versions = [BotVersion.objects.create(bot=Bot.objects.create(owner=owner, game="tafl9", name=f"b{n}"), number=1,
                                          file="bots/x/files.bundle", filename="bot.py", kind="py", sha256="0" * 64,
                                          size=1, status="ready") for n in range(2)]
    match = Match.objects.create(game="tafl9", version_a=versions[0], version_b=versions[1], time_control="move:100")
    Game.objects.create(match=match, number=1, white=versions[0], black=versions[1], winner="white", reason="escape",
                        duration=1.25)

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps
    game = new.get_model("tournaments", "Game").objects.get()
    assert (game.duration, game.white_thinking, game.black_thinking) == (None, None, None)
    version = new.get_model("tournaments", "BotVersion").objects.get(pk=versions[0].pk)
    assert (version.original.name, version.is_active) == ("", True)
    bot = new.get_model("tournaments", "Bot").objects.get(pk=versions[0].bot_id)
    assert (bot.is_retired, bot.pinned_version_id) == (False, None)


# state: constraint (the database's own column defaults, for rows written past the ORM as the benchmarks do)
@pytest.mark.django_db
def test_rows_written_outside_the_orm_get_the_new_columns_defaults(player):
    """The benchmarks COPY bots and versions with the columns they know: the new ones default in the database."""
    from tournaments.models import Bot, BotVersion

    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO tournaments_bot (owner_id, game, name, description, is_public, "
                       "open_to_tournaments, created_at) VALUES (%s, 'tafl9', 'raw', '', TRUE, FALSE, "
                       "CURRENT_TIMESTAMP)", [player.pk])
        bot = Bot.objects.get(name="raw")
        cursor.execute("INSERT INTO tournaments_botversion (bot_id, number, file, filename, kind, sha256, size, "
                       "uploaded_at, status, reject_reason, is_disabled) VALUES (%s, 1, 'f', 'bot.py', 'py', %s, 1, "
                       "CURRENT_TIMESTAMP, 'ready', '', FALSE)", [bot.pk, "0" * 64])
    version = BotVersion.objects.get(bot=bot)
    assert (bot.is_retired, bot.pinned_version_id, version.is_active, version.original.name) == (False, None, True, "")


def _zip(files: dict[str, bytes]) -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


# state: migration (the historical models of the migration under test, which no service writes)
@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_versions_stored_as_raw_archives_are_read_once_into_bundles_or_rejected(tmp_path, settings):
    """An install from before uploads were read once keeps raw archives as versions' files: migration 0005
    stores what passes today's checks as a bundle (the raw file kept as the original) and rejects the rest
    with the reason, writing nothing a worker would unpack."""
    import gzip
    import io
    import tarfile

    from runner.bundle import unpack

    settings.MEDIA_ROOT = tmp_path
    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    old = executor.loader.project_state(AFTER).apps
    User = old.get_model("auth", "User")
    Bot, BotVersion = old.get_model("tournaments", "Bot"), old.get_model("tournaments", "BotVersion")
    owner = User.objects.create(username="old-timer")
    good = _zip({"bot.toml": b'run = "python3 main.py"\n', "main.py": b"print('bgtp 1')\n"})
    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode="w") as archive:
        info = tarfile.TarInfo("escape")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc"
        archive.addfile(info)
    two_members = gzip.compress(b"") + gzip.compress(tar.getvalue())  # the attack the old check let through
    stored = {}
    for n, (kind, content, filename) in enumerate([("zip", good, "bot.zip"), ("tar.gz", two_members, "bot.tar.gz"),
                                                   ("py", b"print('bgtp 1')\n", "solo.py")]):
        path = tmp_path / "bots" / str(n) / filename
        path.parent.mkdir(parents=True)
        path.write_bytes(content)
        stored[kind] = BotVersion.objects.create(
            bot=Bot.objects.create(owner=owner, game="tafl9", name=f"b{n}"), number=1, file=f"bots/{n}/{filename}",
            filename=filename, kind=kind, sha256="0" * 64, size=len(content), status="ready").pk

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([("tournaments", "0005_bundle_stored_uploads")])
    new = executor.loader.project_state([("tournaments", "0005_bundle_stored_uploads")]).apps
    versions = new.get_model("tournaments", "BotVersion").objects
    zipped = versions.get(pk=stored["zip"])
    assert [entry.name for entry in unpack(zipped.file.read())] == ["bot.toml", "main.py"]
    assert zipped.original.name == "bots/0/bot.zip" and zipped.status == "ready"
    refused = versions.get(pk=stored["tar.gz"])
    assert refused.status == "rejected" and "first gzip member" in refused.reject_reason
    assert refused.original.name == "bots/1/bot.tar.gz"
    solo = versions.get(pk=stored["py"])
    assert [(entry.name, entry.data) for entry in unpack(solo.file.read())] == [("solo.py", b"print('bgtp 1')\n")]


# state: migration (the historical models of the migration under test, which no service writes)
@pytest.mark.django_db(transaction=True)
def test_a_rated_tournament_stays_rated_only_if_staff_organised_it():
    """Migration 0007 (issue 17, item 8): ``rated`` becomes ``official``, which only staff set."""
    before, after = [("tournaments", "0006_disk_one_stored_file")], [("tournaments",
                                                                       "0007_official_tournaments_and_tiebreaks")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    User, Tournament = old.get_model("auth", "User"), old.get_model("tournaments", "Tournament")
    staff, player = User.objects.create(username="staff", is_staff=True), User.objects.create(username="player")
    made = {(organiser.username, rated): Tournament.objects.create(name="t", game="tafl9", organiser=organiser,
                                                                   time_control="move:100", rated=rated).pk
            for organiser in (staff, player) for rated in (True, False)}

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(after)
    new = executor.loader.project_state(after).apps.get_model("tournaments", "Tournament")
    official = {key: new.objects.get(pk=pk).official for key, pk in made.items()}
    assert official == {("staff", True): True, ("staff", False): False, ("player", True): False,
                        ("player", False): False}
    assert {row.tiebreaks for row in new.objects.all()} == {"direct_encounter,wins,sonneborn_berger,koya"}


# state: migration (the historical models of the migration under test, which no service writes)
@pytest.mark.django_db(transaction=True)
def test_old_names_get_their_compared_forms_and_old_look_alikes_keep_none():
    """Users and bots made before the name keys get them; a look-alike made before the rule existed keeps an
    empty key (the first holder keeps the name), so the migration never fails on an old database."""
    before, after = [("tournaments", "0009_workers_report_isolation")], [("tournaments", "0010_name_keys")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    User, Bot = old.get_model("auth", "User"), old.get_model("tournaments", "Bot")
    first, second = User.objects.create(username="admin"), User.objects.create(username="ADMIN")
    bots = [Bot.objects.create(owner=first, game="tafl9", name=name) for name in ("ragnar", "Ragnar", "sigurd")]
    Bot.objects.create(owner=second, game="tafl9", name="ragnar")

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(after)
    new = executor.loader.project_state(after).apps
    keys = dict(new.get_model("tournaments", "PlayerName").objects.values_list("user_id", "key"))
    assert keys == {first.pk: name_key("admin"), second.pk: None}
    bot_keys = dict(new.get_model("tournaments", "Bot").objects.filter(owner_id=first.pk).values_list("pk", "name_key"))
    assert bot_keys == {bots[0].pk: "ragnar", bots[1].pk: None, bots[2].pk: "sigurd"}
    assert new.get_model("tournaments", "Bot").objects.get(owner_id=second.pk).name_key == "ragnar"
