from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("tournaments.api.urls")),
    path("", include("web.urls")),
]

handler404 = "web.views.not_found"  # the site's own 404 page when DEBUG is off (views render it themselves)
