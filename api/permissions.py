"""Who may do what: anyone reads public data, owners change their own things, staff everything."""

from rest_framework import permissions


def owner_of(thing):
    """The user who owns a bot or a bot version, or organises a tournament."""
    for path in ("owner", "organiser", "bot.owner"):
        value = thing
        try:
            for part in path.split("."):
                value = getattr(value, part)
        except AttributeError:
            continue
        if value is not None:
            return value
    return None


class IsOwnerOrAdminOrReadOnly(permissions.BasePermission):
    message = "only the owner or an admin may change this"

    def has_permission(self, request, view):
        if request.method in permissions.SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_authenticated)

    def has_object_permission(self, request, view, obj):
        if request.method in permissions.SAFE_METHODS:
            return True
        return is_owner_or_admin(request.user, obj)


def is_owner_or_admin(user, thing) -> bool:
    if not (user and user.is_authenticated):
        return False
    if user.is_staff:
        return True
    owner = owner_of(thing)
    return owner is not None and owner.pk == user.pk
