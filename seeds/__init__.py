"""What a fresh install is seeded with: demo players, the reference bots of every game, the ladder's opening
suite and a demo round-robin per game. ``seed()`` is idempotent: a second run finds everything and changes nothing.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction

from engines import GAME_IDS, RefereeError, get_game
from tournaments.models import Bot, BotVersion, OpeningSuite, Tournament
from tournaments.services import (
    add_entrant,
    api_token,
    create_bot,
    create_player,
    create_tournament,
    smoke_test_version,
    start_tournament,
    upload_version,
)
from tournaments.services.openings import create_suite

BOTS_DIR = Path(__file__).resolve().parent / "bots"
PLAYERS = [  # (user name, password, is admin)
    ("admin", "admin", True),
    ("alice", "alice-demo", False),
    ("bob", "bob-demo", False),
]
# Which demo player owns each kind of reference bot.
OWNERS = {"random": "alice", "greedy": "bob", "search": "alice"}
# The ladder's demo suite: a few plies (placements in Fidchell) from the start, each opening played colour-swapped.
DEMO_SUITE = {"name": "demo", "count": 24, "plies": 4, "seed": 2026}
# A fixed timestamp makes the zip of an unchanged bot byte-identical, so a rerun uploads nothing.
ZIP_TIME = (2024, 1, 1, 0, 0, 0)


@dataclass
class SeedReport:
    players: list[tuple[str, str, str, bool]] = field(default_factory=list)  # name, password, token, created
    created: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def bot_archive(directory: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in directory.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            info = zipfile.ZipInfo(path.relative_to(directory).as_posix(), date_time=ZIP_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


def reference_bots(game_id: str) -> list[tuple[str, Path]]:
    """(kind, directory) of the game's reference bots under seeds/bots/<game>-<kind>/."""
    found = []
    for directory in sorted(BOTS_DIR.glob(f"{game_id}-*")):
        kind = directory.name[len(game_id) + 1:]
        if directory.is_dir() and kind in OWNERS:
            found.append((kind, directory))
    return found


def seed_players(report: SeedReport) -> dict:
    User = get_user_model()
    users = {}
    for name, password, admin in PLAYERS:
        user = User.objects.filter(username=name).first()
        created = user is None
        if created:
            user = create_player(name, password, is_superuser=admin)
            report.created.append(f"player {name}")
        users[name] = user
        report.players.append((name, password, api_token(user), admin))
    return users


def seed_bot(game_id: str, kind: str, directory: Path, owner, report: SeedReport, trusted: bool = False):
    """The reference bot and its version for this archive; smoke-tested when new. None if rejected."""


    name = f"{game_id}-{kind}"
    bot = Bot.objects.filter(owner=owner, game=game_id, name=name).first()
    if bot is None:
        # The demo players agree to the demo tournaments the admin organises with their bots.
        bot = create_bot(owner, game_id, name, description=f"Reference {kind} bot for {game_id}.",
                         open_to_tournaments=True)
        report.created.append(f"bot {name}")
    archive = bot_archive(directory)
    version = BotVersion.objects.filter(bot=bot, sha256=hashlib.sha256(archive).hexdigest()).first()
    if version is None:
        version = upload_version(bot, SimpleUploadedFile(f"{name}.zip", archive))
        report.created.append(f"version {name} v{version.number}")
    if version.status == BotVersion.Status.PENDING:
        version = smoke_test_version(version.pk, trusted)
    if version.status != BotVersion.Status.READY:
        report.skipped.append(f"{name} v{version.number} is {version.status}: {version.reject_reason}")
        return None
    return version


def seed_tournament(game_id: str, versions, organiser, report: SeedReport) -> None:

    name = f"Demo round-robin: {game_id}"
    if Tournament.objects.filter(name=name, game=game_id).exists():
        return
    if len(versions) < 2:
        report.skipped.append(f"{name}: fewer than two ready reference bots")
        return
    with transaction.atomic():
        tournament = create_tournament(organiser, name=name, game=game_id, time_control="move:1000",
                                       games_per_pairing=2, double_round=True, official=True)
        for version in versions:
            add_entrant(tournament, version)
        matches = start_tournament(tournament)
    report.created.append(f"tournament {name!r} with {len(matches)} queued matches")


def seed_openings(game_id: str, report: SeedReport) -> None:
    if OpeningSuite.objects.filter(game=game_id, name=DEMO_SUITE["name"]).exists():
        return
    suite = create_suite(game_id, ladder=not OpeningSuite.objects.filter(game=game_id, ladder=True).exists(),
                         **DEMO_SUITE)
    role = ", the ladder's" if suite.ladder else ""
    report.created.append(f"opening suite {suite} ({DEMO_SUITE['count']} openings{role})")


def game_available(game_id: str) -> bool:
    try:
        get_game(game_id).initial()
    except (RefereeError, ImportError, AttributeError):
        return False
    return True


def seed(trusted: bool = False) -> SeedReport:
    """Idempotent; ``trusted``: smoke-test the reference bots without bubblewrap."""
    report = SeedReport()
    users = seed_players(report)
    for game_id in GAME_IDS:
        if not game_available(game_id):
            report.skipped.append(f"{game_id}: the referee for this game is not installed")
            continue
        seed_openings(game_id, report)
        versions = []
        for kind, directory in reference_bots(game_id):
            version = seed_bot(game_id, kind, directory, users[OWNERS[kind]], report, trusted)
            if version is not None:
                versions.append(version)
        seed_tournament(game_id, versions, users["admin"], report)
    return report
