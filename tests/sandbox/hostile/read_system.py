"""Read system secrets: /etc/shadow, /etc/passwd, root's home, the host's /proc/1/environ."""
import os

from _bgtp import attempt, resign, until_go


def read(path):
    def action():
        if os.path.isdir(path):
            return os.listdir(path)
        with open(path, "rb") as handle:
            return handle.read(4096)
    return action


until_go()
for path in ("/etc/shadow", "/etc/passwd", "/root/.bashrc", "/root/.ssh/id_rsa", "/home",
             "/etc/hostname", "/var/run/postgresql/.s.PGSQL.5432"):
    attempt(f"read{path}", read(path))
resign()
