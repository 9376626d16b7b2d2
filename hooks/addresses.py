"""Where a webhook may point: HTTPS (plain HTTP only where ``WEBHOOK_ALLOW_HTTP`` says so) to a host whose every
address is public, checked at registration and again at each delivery (``WEBHOOK_ALLOW_PRIVATE`` lifts it)."""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from urllib.parse import urlsplit

from knobs import arena


class BadAddress(ValueError):
    """The URL may not be delivered to; the message says why."""


class Unresolved(BadAddress):
    """The host's name was not looked up now: no answer in time, too many lookups under way, or no such name (yet).
    A registration is refused; a delivery tries again later, as after any answer that was not one."""


def allow_http() -> bool:
    return arena.WEBHOOK_ALLOW_HTTP


def allow_private() -> bool:
    return arena.WEBHOOK_ALLOW_PRIVATE


def check_url(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of a URL a webhook may have, without resolving it; else BadAddress."""
    parts = urlsplit(url)
    schemes = ("https", "http") if allow_http() else ("https",)
    if parts.scheme not in schemes:
        raise BadAddress("must be an https:// URL" if not allow_http() else "must be an http:// or https:// URL")
    if parts.username or parts.password:
        raise BadAddress("must not carry a user name or password (the signature proves it is us)")
    if not parts.hostname:
        raise BadAddress("must name a host")
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:  # urlsplit reads ":0" as 0, which "or 443" would have turned into the default port
        raise BadAddress("has a port that is not a number from 1 to 65535")
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


# IPv6 addresses that carry an IPv4 one a gateway may deliver to: NAT64's well-known prefix and the old
# IPv4-compatible form (``ipv4_mapped``, ``sixtofour`` and ``teredo`` are read by ``ipaddress`` itself).
CARRIERS = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("::/96"))


def carried(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address a (not IPv4-mapped) IPv6 address carries, if any (``::1`` and ``::`` carry none)."""
    if ip.sixtofour:
        return ip.sixtofour
    if ip.teredo:
        return ip.teredo[1]
    if any(ip in network for network in CARRIERS) and int(ip) > 1:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def refused_address(address: str) -> str | None:
    """Why this IP address may not be delivered to, or None. An IPv6 address that carries an IPv4 one is judged
    by both (``http://[64:ff9b::7f00:1]/`` is 127.0.0.1 behind a NAT64 gateway); an IPv4-mapped one is its IPv4."""
    if allow_private():
        return None
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    inner = carried(ip) if isinstance(ip, ipaddress.IPv6Address) else None
    for judged in (inner, ip) if inner else (ip,):
        if not judged.is_global or judged.is_multicast:  # 3.11 counts multicast as global
            kind = next((name for name in ("loopback", "link_local", "unspecified", "multicast", "reserved",
                                           "private") if getattr(judged, f"is_{name}")), "non-public")
            kind = kind.replace("_", "-")
            article = "an" if kind[0] in "aeiou" else "a"
            return f"resolves to {ip}{f', which carries {inner}' if judged is inner else ''}, {article} {kind} address"
    return None


# Lookups under way at once in one process. A name whose DNS answers slowly, or never, holds a thread until the
# system resolver gives up (which no one can cut short); its caller, a web request or the hooks worker, waits
# WEBHOOK_TIMEOUT_SECONDS at most, and the threads such names hold stay few.
LOOKUPS_AT_ONCE = 4
LOOKUPS = threading.BoundedSemaphore(LOOKUPS_AT_ONCE)


def lookup(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to, within ``WEBHOOK_TIMEOUT_SECONDS``; else Unresolved."""
    seconds = arena.WEBHOOK_TIMEOUT_SECONDS
    until = time.monotonic() + seconds  # waiting for a free lookup counts too: the caller waits ``seconds`` in all
    if not LOOKUPS.acquire(timeout=seconds):
        raise Unresolved(f"host {host} was not looked up: too many slow lookups are under way, try again later")
    answer = {}

    def look() -> None:
        try:
            answer["found"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as error:
            answer["error"] = error
        finally:
            LOOKUPS.release()

    looking = threading.Thread(target=look, name="webhook-lookup", daemon=True)
    looking.start()
    looking.join(max(0.0, until - time.monotonic()))
    if "found" in answer:
        return [info[4][0] for info in answer["found"]]
    if "error" in answer:
        raise Unresolved(f"host {host} does not resolve ({answer['error']})")
    raise Unresolved(f"host {host} did not resolve within {seconds:g} s")


def resolve(host: str, port: int) -> str:
    """The first address of ``host``, once every address it resolves to is allowed; else BadAddress."""
    addresses = lookup(host, port)
    for address in addresses:
        reason = refused_address(address)
        if reason:
            raise BadAddress(reason)
    return addresses[0]


def check_destination(url: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, address to connect to) of an allowed URL; else BadAddress."""
    scheme, host, port = check_url(url)
    return scheme, host, port, resolve(host, port)
