"""A bot's life after its creation, in its owner's hands (and staff's): retire it and bring it back, choose
which version plays, deactivate a version, delete a bot that never played a rated game."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q

from .. import referee
from ..models import Bot, BotVersion, Game, Match, TournamentEntrant
from .matches import cancel_queued, check_playable

OUTSIDE_TOURNAMENTS = Q(tournament__isnull=True)
LADDER = OUTSIDE_TOURNAMENTS & Q(rated=True)


def _of_bot(bot: Bot) -> Q:
    return Q(version_a__bot=bot) | Q(version_b__bot=bot)


@transaction.atomic
def set_retired(bot: Bot, retired: bool) -> Bot:
    """A retired bot leaves the ladder and the leaderboard and is not paired; its queued ladder matches and
    challenges are cancelled. Its games and ratings stay, and un-retiring brings it back as it was."""
    if bot.is_retired == retired:
        return bot
    bot.is_retired = retired
    bot.save(update_fields=["is_retired"])
    if retired:
        cancel_queued(_of_bot(bot) & OUTSIDE_TOURNAMENTS, f"{bot.name} was retired by its owner")
    return bot


@transaction.atomic
def pin_version(bot: Bot, version_id: int | None) -> Bot:
    """The version that plays on the ladder: one of the bot's own ready, active, enabled versions, or None for
    the newest such. Queued ladder matches of its other versions are cancelled, so the choice shows at once."""
    if version_id is None:
        bot.pinned_version = None
    else:
        version = BotVersion.objects.filter(bot=bot, pk=version_id).select_related("bot").first()
        if version is None:
            raise ValidationError({"pinned_version": [f"{bot.name} has no version with id {version_id}"]})
        check_playable(version, "pinned_version")
        bot.pinned_version = version
    bot.save(update_fields=["pinned_version"])
    if bot.pinned_version_id is not None:
        others = Q(version_a__bot=bot) & ~Q(version_a=bot.pinned_version_id)
        others |= Q(version_b__bot=bot) & ~Q(version_b=bot.pinned_version_id)
        cancel_queued(others & LADDER, f"{bot.name} now plays {bot.pinned_version}")
    return bot


def unpin_if_pinned(version: BotVersion) -> None:
    """A version that can no longer play stops being the pinned one: the bot falls back to its newest."""
    bot = Bot.objects.filter(pk=version.bot_id, pinned_version=version).first()
    if bot is not None:
        bot.pinned_version = None
        bot.save(update_fields=["pinned_version"])


@transaction.atomic
def set_version_active(version: BotVersion, active: bool) -> BotVersion:
    """The owner's switch: an inactive version is not paired, its queued ladder matches and challenges are
    cancelled and it stops being the pinned version. Its games stay; it can be activated again."""
    version = BotVersion.objects.select_for_update().select_related("bot").get(pk=version.pk)
    if version.is_active == active:
        return version
    version.is_active = active
    version.save(update_fields=["is_active"])
    if not active:
        unpin_if_pinned(version)
        cancel_queued((Q(version_a=version) | Q(version_b=version)) & OUTSIDE_TOURNAMENTS,
                      f"{version} was deactivated by its owner")
    return version


@transaction.atomic
def delete_bot(bot: Bot) -> None:
    """Delete a bot that never played a rated game, with its versions, files and unrated matches outside
    tournaments. A bot with rated games keeps them (other bots' ratings came from them): retire it instead; so
    does a bot entered in a tournament (the organiser's table keeps its entrants)."""
    bot = Bot.objects.select_for_update().get(pk=bot.pk)
    rated = Game.objects.filter(Q(white__bot=bot) | Q(black__bot=bot), match__rated=True).count()
    if rated:
        raise ValidationError({"detail": [
            f"{bot.name} has played {rated} rated games, which stay with the ratings they made: retire it instead "
            "(PATCH is_retired=true)"]})
    entry = TournamentEntrant.objects.filter(version__bot=bot).select_related("tournament").first()
    if entry is not None:
        raise ValidationError({"detail": [
            f"{bot.name} is entered in the tournament {entry.tournament.name!r} (id {entry.tournament_id}), whose "
            "table keeps its entrants: retire it instead (PATCH is_retired=true)"]})
    if Match.objects.filter(_of_bot(bot), status=Match.Status.RUNNING).exists():
        raise ValidationError({"detail": [f"a match of {bot.name} is being played; try again once it ends"]})
    versions = list(bot.versions.all())
    files = [stored for version in versions for stored in (version.file, version.original) if stored.name]
    keys = [referee.cache_key(version) for version in versions]
    Match.objects.filter(_of_bot(bot)).delete()  # unrated (or never played) and outside tournaments: checked above
    bot.delete()
    transaction.on_commit(lambda: _delete_files(files, keys))


def _delete_files(files, keys) -> None:
    """The stored files, and this machine's unpacked copies (workers elsewhere drop theirs at their next
    trim: ``runner.cache``)."""
    for stored in files:
        stored.storage.delete(stored.name)
    referee.forget_versions(keys)
