"""Open raw, packet, netlink, UDP and TCP sockets; anything but AF_UNIX should be refused."""
import socket

from _bgtp import attempt, resign, until_go

KINDS = {
    "inet-tcp": (socket.AF_INET, socket.SOCK_STREAM),
    "inet-udp": (socket.AF_INET, socket.SOCK_DGRAM),
    "inet6-tcp": (socket.AF_INET6, socket.SOCK_STREAM),
    "raw": (socket.AF_INET, socket.SOCK_RAW),
    "packet": (getattr(socket, "AF_PACKET", 17), socket.SOCK_RAW),
    "netlink": (getattr(socket, "AF_NETLINK", 16), socket.SOCK_RAW),
}


def open_socket(family, kind):
    def action():
        sock = socket.socket(family, kind)
        sock.close()
        return "socket opened"
    return action


until_go()
for name, (family, kind) in KINDS.items():
    attempt(f"socket-{name}", open_socket(family, kind))
resign()
