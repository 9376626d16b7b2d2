"""How the API shows one's webhooks and their deliveries, and what it takes to make or pause one."""

from __future__ import annotations

from rest_framework import serializers

from hooks.models import Delivery, Endpoint


class WebhookSerializer(serializers.ModelSerializer):
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
        extra_kwargs = {"id": {"help_text": "The webhook's id."},
                        "active": {"help_text": "Whether events are delivered to it (false: paused)."},
                        "created": {"help_text": "When it was registered."}}


class CreatedWebhookSerializer(WebhookSerializer):
    """The creation's answer: the secret this once."""

    secret = serializers.CharField(read_only=True, help_text="The signing secret: keep it, it is not shown again.")


class WebhookUpdateSerializer(serializers.ModelSerializer):
    class Meta:
        model = Endpoint
        fields = ["active"]
        extra_kwargs = {"active": {"help_text": "false pauses the webhook, true resumes it."}}


class DeliverySerializer(serializers.ModelSerializer):
    event = serializers.CharField(source="notice.event", read_only=True,
                                  help_text="The event's name, as in the X-Arena-Event header (docs/webhooks.md).")
    payload = serializers.JSONField(source="notice.body", read_only=True, help_text="The body as POSTed.")

    class Meta:
        model = Delivery
        fields = ["id", "event", "payload", "status", "attempts", "response_code", "error", "created",
                  "last_attempt", "delivered"]
        read_only_fields = fields
        extra_kwargs = {
            "id": {"help_text": "The delivery's id."},
            "status": {"help_text": "pending (queued, or waiting for its next try), delivered (a 2xx answer), or "
                                    "failed (every try failed, or the address was refused)."},
            "attempts": {"help_text": "Tries so far."},
            "response_code": {"help_text": "The last try's HTTP status, null when there was no answer."},
            "error": {"help_text": "Why the last try failed (empty once delivered); never the secret."},
            "created": {"help_text": "When the event happened and the delivery was queued."},
            "last_attempt": {"help_text": "When it was last tried."},
            "delivered": {"help_text": "When a 2xx answer came."},
        }
