"""When a Celery message was last sent for a queued match: the dispatcher's memory."""

from __future__ import annotations

from django.db import models


class Dispatch(models.Model):
    match = models.OneToOneField("tournaments.Match", on_delete=models.CASCADE, primary_key=True,
                                 related_name="dispatch")
    sent_at = models.DateTimeField()
    sends = models.PositiveIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["sent_at"], name="dispatch_sent_idx")]

    def __str__(self) -> str:
        return f"match {self.match_id} sent {self.sends}x, last {self.sent_at:%Y-%m-%d %H:%M:%S}"
