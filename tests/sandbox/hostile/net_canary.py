"""Connect to the test's canary server on loopback (IPv4 and IPv6), and via 'localhost'."""
import socket

from _bgtp import TARGETS, attempt, resign, until_go

port = TARGETS.get("canary_port", 1)


def connect(host):
    def action():
        with socket.create_connection((host, port), timeout=2) as conn:
            conn.sendall(b"PWNED\n")
            return f"connected to {host}:{port}"
    return action


until_go()
for host in ("127.0.0.1", "::1", "localhost"):
    attempt(f"canary-{host}", connect(host))
resign()
