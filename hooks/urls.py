"""The site's webhook doors (under /webhooks/, config/urls.py)."""

from django.urls import path

from . import site

app_name = "hooks"
urlpatterns = [
    path("", site.add, name="add"),
    path("<int:endpoint_id>/ping/", site.ping, name="ping"),
    path("<int:endpoint_id>/remove/", site.remove, name="remove"),
]
