"""The admin site (Django finds it as ``ops.admin``): the domain's models, the opening suites, the ratings' tables and
the webhooks."""

from . import openings, ratings, tournaments, webhooks  # noqa: F401  (each registers its models with admin.site)
