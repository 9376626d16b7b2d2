"""Webhooks in the admin: the endpoints (never their secrets; pausing one is the only edit) and every
delivery, read only."""

from __future__ import annotations

from django.contrib import admin

from hooks.models import Delivery, Endpoint


@admin.register(Endpoint)
class EndpointAdmin(admin.ModelAdmin):
    list_display = ("url", "owner", "active", "created")
    list_filter = ("active",)
    search_fields = ("url", "owner__username")
    exclude = ("secret",)  # signs the owner's deliveries: not for the admin's pages either
    readonly_fields = ("owner", "url", "created")


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    list_display = ("notice", "endpoint", "status", "attempts", "response_code", "last_attempt")
    list_filter = ("status",)
    readonly_fields = [field.name for field in Delivery._meta.fields]
