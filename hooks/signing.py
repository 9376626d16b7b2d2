"""The signature a receiver checks: HMAC-SHA256 with the endpoint's secret over ``"<timestamp>.<body>"``, sent as
``X-Arena-Signature: sha256=<hex>`` beside ``X-Arena-Timestamp`` (Unix seconds). The timestamp in the signed
text lets a receiver refuse a replayed old delivery (docs/webhooks.md has the receiver's side)."""

from __future__ import annotations

import hashlib
import hmac


def signature(secret: str, timestamp: int, body: bytes) -> str:
    signed = str(timestamp).encode() + b"." + body
    return "sha256=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


def verify(secret: str, timestamp: str, body: bytes, header: str) -> bool:
    """The receiver's check (what docs/webhooks.md shows), used by the tests' receiver."""
    return hmac.compare_digest(signature(secret, int(timestamp), body), header)
