from django.contrib import admin
from django.urls import include, path

from tournaments.dashboard import dashboard_view

urlpatterns = [
    path("admin/dashboard/", dashboard_view, name="admin-dashboard"),
    path("admin/", admin.site.urls),
    path("api/", include("tournaments.api.urls")),
]
