"""Where a webhook may point: HTTPS (plain HTTP only where ``WEBHOOK_ALLOW_HTTP`` says so) to a host whose every
address is public, checked at registration and again at each delivery (``WEBHOOK_ALLOW_PRIVATE`` lifts it)."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from knobs import arena


class BadAddress(ValueError):
    """The URL may not be delivered to; the message says why."""


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
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise BadAddress("has a port that is not a number from 1 to 65535") from None
    return parts.scheme, parts.hostname, port


def refused_address(address: str) -> str | None:
    """Why this IP address may not be delivered to, or None."""
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    if allow_private() or ip.is_global:
        return None
    kind = next((name for name in ("loopback", "link_local", "unspecified", "multicast", "reserved", "private")
                 if getattr(ip, f"is_{name}")), "not public")
    return f"resolves to {ip}, a {kind.replace('_', '-')} address"


def resolve(host: str, port: int) -> str:
    """The first address of ``host``, once every address it resolves to is allowed; else BadAddress."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise BadAddress(f"host {host} does not resolve ({error})") from None
    addresses = [info[4][0] for info in found]
    for address in addresses:
        reason = refused_address(address)
        if reason:
            raise BadAddress(reason)
    return addresses[0]


def check_destination(url: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, address to connect to) of an allowed URL; else BadAddress."""
    scheme, host, port = check_url(url)
    return scheme, host, port, resolve(host, port)
