"""The admin site (Django finds it as ``ops.admin``): the domain's models and the ratings' tables."""

from . import ratings, tournaments  # noqa: F401  (each registers its models with admin.site)
