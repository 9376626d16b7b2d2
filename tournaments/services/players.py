"""Players and their bots."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from ..models import Bot, PlayerName, validate_bot_name
from ..names import name_key
from .bots import pin_version, set_retired
from .matches import check_game


@transaction.atomic
def create_player(username: str, password: str | None, email: str = "", *, is_staff: bool = False,
                  is_superuser: bool = False):
    """A player is a Django user with an API token from the start."""
    User = get_user_model()
    if not username or not str(username).strip():
        raise ValidationError({"username": ["a player needs a user name"]})
    if User.objects.filter(username=username).exists():
        raise ValidationError({"username": [f"the user name {username!r} is taken"]})
    check_user_name(username)
    user = User(username=username, email=email, is_staff=is_staff or is_superuser, is_superuser=is_superuser)
    if password:
        user.set_password(password)
    else:
        user.set_unusable_password()
    user.full_clean(exclude=["password"])
    try:
        with transaction.atomic():
            user.save()  # keep_name_key: a look-alike registered since the check above is refused here
    except IntegrityError:
        raise ValidationError({"username": [f"the user name {username!r} was taken a moment ago, or one too "
                                            "like it"]}) from None
    Token.objects.create(user=user)
    return user


def check_user_name(username: str, user_pk: int | None = None) -> None:
    """Refuses a user name too like another user's (ValidationError on ``username``); ``user_pk``: the user
    being renamed, whose own name is not in the way. The admin's user forms ask this too."""
    others = get_user_model().objects.exclude(pk=user_pk).values_list("username", flat=True)
    _check_unlike(username, others, "name_form__key", "username", "the user name")


def keep_name_key(sender, instance, **kwargs) -> None:
    """A user was saved: keep their name's compared form (``PlayerName``). A look-alike of another user's
    name raises IntegrityError, so the save that made it fails with it. A save of other fields only (a login's
    ``last_login``) leaves it alone: no query on every login."""
    update_fields = kwargs.get("update_fields")
    if update_fields is not None and "username" not in update_fields:
        return
    PlayerName.objects.update_or_create(user=instance, defaults={"key": name_key(instance.username) or None})


def api_token(user) -> str:
    token, _ = Token.objects.get_or_create(user=user)
    return token.key


@transaction.atomic
def rotate_token(user) -> str:
    """A fresh API token for ``user``; the old one stops working at once (its row is gone, and DRF looks the
    token up on every request). For a token that leaked, or was shared by mistake."""
    Token.objects.filter(user=user).delete()
    return Token.objects.create(user=user).key


def _check_unlike(name: str, names, key_lookup: str, field: str, what: str) -> None:
    """Refuses ``name`` when one of ``names`` (a flat values_list) is the same once compared as
    ``tournaments.names`` compares them (case, punctuation and look-alike letters set aside): ``аdmin``,
    ``ADMIN`` and ``admin.`` are ``admin``. ``key_lookup`` is the field holding the stored compared form (one
    indexed read; its unique constraint also settles two look-alikes made at the same instant)."""
    key = name_key(name)
    if not key:
        raise ValidationError({field: [f"{what} {name!r} has no letter or digit"]})
    other = names.filter(**{key_lookup: key}).first()
    if other is not None:
        raise ValidationError({field: [
            f"{what} {name!r} is too like {other!r}, which exists: names are compared ignoring case, "
            "punctuation and look-alike characters"]})


def _check_bot_fields(game: str, name: str) -> None:
    check_game(game)
    try:
        validate_bot_name(name)
    except ValidationError as error:
        raise ValidationError({"name": error.messages}) from None


def create_bot(owner, game: str, name: str, description: str = "", is_public: bool = True,
               open_to_tournaments: bool = False) -> Bot:
    _check_bot_fields(game, name)
    if Bot.objects.filter(owner=owner, game=game, name=name).exists():
        raise ValidationError({"name": [f"you already have a {game} bot called {name!r}"]})
    _check_unlike(name, Bot.objects.filter(owner=owner, game=game).values_list("name", flat=True), "name_key",
                  "name", f"the {game} bot name")
    try:
        with transaction.atomic():
            return Bot.objects.create(owner=owner, game=game, name=name, description=description,
                                      is_public=is_public, open_to_tournaments=open_to_tournaments)
    except IntegrityError:
        raise ValidationError({"name": [f"you already have a {game} bot called {name!r}, or one too like it"]}) \
            from None


UNCHANGED = object()  # ``pinned_version`` not given (None is a choice: the newest ready version)


@transaction.atomic
def update_bot(bot: Bot, *, name: str | None = None, description: str | None = None,
               is_public: bool | None = None, open_to_tournaments: bool | None = None,
               is_retired: bool | None = None, pinned_version=UNCHANGED) -> Bot:
    """Name, description, visibility, consent, retirement and the pinned version may change; the game may not
    (versions were judged for it). Every field is checked before anything is written.

    Withdrawing ``open_to_tournaments`` keeps the bot out of tournaments that have not started yet
    (``start_tournament`` checks every entrant's consent again)."""
    bot = Bot.objects.select_for_update().get(pk=bot.pk)
    if name is not None:
        _check_bot_fields(bot.game, name)
        others = Bot.objects.filter(owner=bot.owner_id, game=bot.game).exclude(pk=bot.pk)
        if others.filter(name=name).exists():
            raise ValidationError({"name": [f"you already have a {bot.game} bot called {name!r}"]})
        _check_unlike(name, others.values_list("name", flat=True), "name_key", "name", f"the {bot.game} bot name")
        bot.name = name
    if description is not None:
        bot.description = description
    if is_public is not None:
        bot.is_public = is_public
    if open_to_tournaments is not None:
        bot.open_to_tournaments = open_to_tournaments
    try:
        with transaction.atomic():
            bot.save()
    except IntegrityError:  # a look-alike made since the check above
        raise ValidationError({"name": [f"you already have a {bot.game} bot called {name!r}, or one too like it"]}) \
            from None
    if is_retired is not None:
        set_retired(bot, is_retired)
    if pinned_version is not UNCHANGED:
        pin_version(bot, pinned_version)  # raises before the transaction commits: then nothing changed
    return bot
