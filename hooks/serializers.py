from __future__ import annotations

from rest_framework import serializers

from .models import Delivery, Endpoint


class EndpointSerializer(serializers.ModelSerializer):
    url = serializers.URLField(max_length=500, help_text="Where events are POSTed: https:// (a public address).")
    secret = serializers.CharField(
        write_only=True, required=False, allow_blank=True, min_length=16, max_length=128,
        help_text="Signs each delivery (HMAC-SHA256). Left out, one is made; the answer to the creation shows it, "
                  "once: it is never shown again.")
    secret_hint = serializers.CharField(read_only=True, help_text="The secret's last four characters.")

    class Meta:
        model = Endpoint
        fields = ["id", "url", "secret", "secret_hint", "active", "created"]
        read_only_fields = ["id", "created"]


class CreatedEndpointSerializer(EndpointSerializer):
    """The creation's answer: the secret this once."""

    secret = serializers.CharField(read_only=True, help_text="The signing secret: keep it, it is not shown again.")


class EndpointUpdateSerializer(serializers.ModelSerializer):
    class Meta:
        model = Endpoint
        fields = ["active"]


class DeliverySerializer(serializers.ModelSerializer):
    event = serializers.CharField(source="notice.event", read_only=True)
    payload = serializers.JSONField(source="notice.body", read_only=True, help_text="The body as POSTed.")

    class Meta:
        model = Delivery
        fields = ["id", "event", "payload", "status", "attempts", "response_code", "error", "created",
                  "last_attempt", "delivered"]
        read_only_fields = fields
