"""Connect to Redis on the host's loopback and send PING."""
import socket

from _bgtp import attempt, resign, until_go


def ping():
    with socket.create_connection(("127.0.0.1", 6379), timeout=2) as conn:
        conn.sendall(b"PING\r\n")
        return conn.recv(64) or "connected"


until_go()
attempt("redis", ping)
resign()
