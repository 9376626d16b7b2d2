"""The operators' side of the serving layer: the admin and its dashboard, and the manage.py commands."""
