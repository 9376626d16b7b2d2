"""One POST of one delivery: to the address ``hooks.addresses`` checked (not a second lookup), within a short
deadline for the whole of it, no redirect followed (http.client never follows one), only the status kept."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from knobs import arena

from .addresses import BadAddress, Unresolved, check_destination
from .signing import signature

USER_AGENT = "TabulaArena-Webhooks/1"


@dataclass(frozen=True)
class Outcome:
    code: int | None  # the receiver's HTTP status, None when there was no answer
    error: str  # empty for a 2xx
    final: bool = False  # no later try can fare better: the address is refused

    @property
    def delivered(self) -> bool:
        return self.code is not None and 200 <= self.code < 300


def shut(sock: socket.socket) -> None:
    """End a connection under whoever reads or writes it (the plain socket's shutdown, under TLS too: the reading
    thread sees the end of the stream)."""
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:  # already closed
        pass


class PinnedHTTPConnection(http.client.HTTPConnection):
    """Connects to the checked address while the Host header names the URL's host; ``expired`` is set once the
    delivery's deadline has passed (``deadline``)."""

    def __init__(self, host, port, address, timeout, **options):
        super().__init__(host, port, timeout=timeout, **options)
        self.address, self.expired = address, threading.Event()

    def connect(self):
        self.sock = socket.create_connection((self.address, self.port), self.timeout)
        self.cut_if_late()

    def cut_if_late(self) -> None:
        """The deadline may have passed while the socket was being made, when there was none to cut: cut it now.
        (The deadline sets ``expired`` before it looks for a socket, and a socket is set before this looks at
        ``expired``: one of the two always sees the other.)"""
        if self.expired.is_set():
            shut(self.sock)


class PinnedHTTPSConnection(PinnedHTTPConnection, http.client.HTTPSConnection):
    """The same over TLS: the certificate is checked against the URL's host name (SNI too)."""

    def __init__(self, host, port, address, timeout):
        super().__init__(host, port, address, timeout, context=ssl.create_default_context())

    def connect(self):
        sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = sock  # the plain socket first, so that the deadline can cut the handshake too
        self.cut_if_late()
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def encode(payload: dict) -> bytes:
    """A notice's body as sent and signed (the feed sends the same JSON)."""
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()


def deadline(connection: PinnedHTTPConnection, seconds: float) -> threading.Timer:
    """A timer that ends the connection once the delivery's time is up, and sets its ``expired``. The socket's own
    timeout bounds each read, not the answer: a receiver that drips its headers a byte at a time, each within that
    timeout, would otherwise hold the hooks worker as long as it liked."""

    def cut() -> None:
        connection.expired.set()
        sock = connection.sock  # read once: the delivery's thread sets it to None as it closes the connection
        if sock is not None:
            shut(sock)

    timer = threading.Timer(seconds, cut)
    timer.daemon = True
    return timer


def post(url: str, secret: str, event: str, body: bytes) -> Outcome:
    try:
        scheme, host, port, address = check_destination(url)
    except Unresolved as unresolved:  # the name's DNS, or the lookups of others, may answer next time
        return Outcome(None, str(unresolved))
    except BadAddress as refused:
        return Outcome(None, f"refused: {refused}", final=True)
    timeout = arena.WEBHOOK_TIMEOUT_SECONDS
    kind = PinnedHTTPSConnection if scheme == "https" else PinnedHTTPConnection
    connection = kind(host, port, address, timeout)
    timestamp = int(time.time())
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT, "X-Arena-Event": event,
               "X-Arena-Timestamp": str(timestamp), "X-Arena-Signature": signature(secret, timestamp, body)}
    started = time.monotonic()
    watchdog = deadline(connection, timeout)
    watchdog.start()
    try:
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        response.read(1024)  # a little of the body, so the connection closes cleanly; none of it is kept
        code = response.status
    except (OSError, http.client.HTTPException) as error:
        waited = time.monotonic() - started
        what = "timed out" if isinstance(error, TimeoutError) or connection.expired.is_set() else type(error).__name__
        return Outcome(None, f"{what} after {waited:.1f} s: {error}"[:300])
    finally:
        watchdog.cancel()
        connection.close()
    if connection.expired.is_set():  # an answer cut short may still parse: it is not one
        return Outcome(None, f"timed out after {time.monotonic() - started:.1f} s: the answer was not over")
    return Outcome(code, "" if 200 <= code < 300 else f"answered {code}")
