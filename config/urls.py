from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("tournaments.api.urls")),
    path("", include("web.urls")),
]

# An unknown /api/ address answers the API's JSON error, any other the site's own 404 page (DEBUG off).
handler404 = "tournaments.exceptions.api_not_found"
