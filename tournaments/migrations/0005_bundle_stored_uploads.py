"""Versions stored before uploads were read once: their file is still the player's raw archive (or .py),
which the worker no longer unpacks. Read each one now, once, with today's checks: what passes is stored as a
bundle and the raw file is kept as the player's original (for download); what fails is rejected with the
reason, its raw file kept beside it and never given to a worker. Nothing is deleted."""

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import migrations

from runner.bundle import BUNDLE_MAGIC, BadFiles, Entry, FileLimits, pack, read_tar_gz, read_zip


def _entries(kind: str, filename: str, content: bytes, limits: FileLimits) -> list[Entry]:
    if kind == "py":
        return [Entry(filename, content)]
    return (read_zip if kind == "zip" else read_tar_gz)(content, limits)


def bundle_stored_uploads(apps, schema_editor):
    BotVersion = apps.get_model("tournaments", "BotVersion")
    arena = settings.ARENA
    limits = FileLimits(max_entries=arena["UPLOAD_MAX_FILES"], max_bytes=arena["UPLOAD_MAX_UNPACKED_BYTES"],
                        max_ratio=arena["UPLOAD_MAX_RATIO"])
    for version in BotVersion.objects.filter(original="").exclude(file="").iterator():
        try:
            with version.file.open("rb") as stored:
                content = stored.read()
        except OSError:  # a row whose file is gone: nothing to read, and nothing a worker could play
            continue
        if content.startswith(BUNDLE_MAGIC):
            continue
        raw_name = version.file.name
        try:
            entries = _entries(version.kind, version.filename, content, limits)
        except BadFiles as error:
            BotVersion.objects.filter(pk=version.pk).update(
                original=raw_name, status="rejected",
                reject_reason=f"stored before uploads were read once; refused when read now: {error}"[:2000])
            continue
        version.file.save("files.bundle", ContentFile(pack(entries)), save=False)
        version.original.name = raw_name
        version.save(update_fields=["file", "original"])


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0004_bot_lifecycle_and_game_times")]
    operations = [migrations.RunPython(bundle_stored_uploads, migrations.RunPython.noop)]
