"""Players and their bots."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from ..models import Bot
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
    user = User(username=username, email=email, is_staff=is_staff or is_superuser, is_superuser=is_superuser)
    if password:
        user.set_password(password)
    else:
        user.set_unusable_password()
    user.full_clean(exclude=["password"])
    user.save()
    Token.objects.create(user=user)
    return user


def api_token(user) -> str:
    token, _ = Token.objects.get_or_create(user=user)
    return token.key


def _check_bot_fields(game: str, name: str) -> None:
    check_game(game)
    if not name or not name.strip():
        raise ValidationError({"name": ["a bot needs a name"]})
    if len(name) > Bot._meta.get_field("name").max_length:
        raise ValidationError({"name": ["the name is longer than 64 characters"]})


def create_bot(owner, game: str, name: str, description: str = "", is_public: bool = True) -> Bot:
    _check_bot_fields(game, name)
    if Bot.objects.filter(owner=owner, game=game, name=name).exists():
        raise ValidationError({"name": [f"you already have a {game} bot called {name!r}"]})
    try:
        with transaction.atomic():
            return Bot.objects.create(owner=owner, game=game, name=name.strip(), description=description,
                                      is_public=is_public)
    except IntegrityError:
        raise ValidationError({"name": [f"you already have a {game} bot called {name!r}"]}) from None


def update_bot(bot: Bot, *, name: str | None = None, description: str | None = None,
               is_public: bool | None = None) -> Bot:
    """Name, description and visibility may change; the game may not (versions were judged for it)."""
    if name is not None:
        _check_bot_fields(bot.game, name)
        if Bot.objects.filter(owner=bot.owner_id, game=bot.game, name=name).exclude(pk=bot.pk).exists():
            raise ValidationError({"name": [f"you already have a {bot.game} bot called {name!r}"]})
        bot.name = name.strip()
    if description is not None:
        bot.description = description
    if is_public is not None:
        bot.is_public = is_public
    bot.save()
    return bot
