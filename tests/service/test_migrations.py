"""Migration 0004: a stored game's ``duration`` held the sum of both bots' thinking times, not the wall-clock
time it claimed to be; after the migration no old game claims a figure nobody measured."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("tournaments", "0002_bot_names_and_tournament_consent")]
AFTER = [("tournaments", "0004_bot_lifecycle_and_game_times")]


@pytest.mark.django_db(transaction=True)
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

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())  # the rest of the suite needs the latest schema


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
