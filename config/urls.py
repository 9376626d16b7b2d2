"""The root URLs: the site, the REST API under /api/, the admin under /admin/, and the 404s of each."""

from django.contrib import admin
from django.urls import include, path

from api.exceptions import api_not_found
from web.views import not_found as web_not_found

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("api.urls")),
    path("", include("web.urls")),
]


def not_found(request, exception=None):
    """Django's 404 for an address no route matches (DEBUG off): JSON under /api/, the site's page elsewhere."""
    if request.path.startswith("/api/"):
        return api_not_found(request, exception)
    return web_not_found(request, exception)


handler404 = not_found
