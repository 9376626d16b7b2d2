"""A player's webhook endpoints, what happened to their bots (notices), and each notice's delivery to each
endpoint. A notice is stored once per owner: the deliveries and the events feed (``api.feed``) read it."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Endpoint(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    # Kept to sign each delivery (HMAC needs it in the clear); shown to its owner once, when it is made.
    secret = models.CharField(max_length=128)
    active = models.BooleanField(default=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]
        verbose_name = "webhook"

    def __str__(self) -> str:
        return f"{self.url} ({self.owner_id})"

    @property
    def secret_hint(self) -> str:
        """What the log and the lists show of the secret: its last four characters."""
        return f"…{self.secret[-4:]}"


class Notice(models.Model):
    """One event as one owner hears it: the JSON body every endpoint of theirs gets, and the feed sends."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notices")
    event = models.CharField(max_length=40)
    payload = models.JSONField(help_text="The event's data: the body's ``data`` (``body`` adds the rest).")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["owner", "id"], name="hooks_notice_owner_id")]

    def __str__(self) -> str:
        return f"{self.event} for {self.owner_id}"

    @property
    def body(self) -> dict:
        """What is POSTed and streamed: the notice's id (a receiver drops a delivery it has had), its event's
        name, when it happened, and the event's data."""
        return {"id": self.pk, "event": self.event, "created": self.created.isoformat(), "data": self.payload}


class Delivery(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"  # sent to the queue, or waiting for its next try
        DELIVERED = "delivered"  # a 2xx answer
        FAILED = "failed"  # every try failed, or the address was refused

    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="deliveries")
    notice = models.ForeignKey(Notice, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    response_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)
    last_attempt = models.DateTimeField(null=True, blank=True)
    delivered = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-pk"]
        verbose_name_plural = "deliveries"

    def __str__(self) -> str:
        return f"{self.notice.event} → {self.endpoint.url}: {self.status}"
