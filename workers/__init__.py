"""Celery tasks and the ranked-play scheduler: everything that turns queued matches into results."""
