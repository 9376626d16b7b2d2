"""Connect to PostgreSQL on the host's loopback."""
import socket

from _bgtp import attempt, resign, until_go


def connect():
    with socket.create_connection(("127.0.0.1", 5432), timeout=2):
        return "connected"


until_go()
attempt("postgres", connect)
resign()
