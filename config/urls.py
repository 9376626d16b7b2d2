from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("tournaments.api.urls")),
]

handler404 = "tournaments.exceptions.api_not_found"
