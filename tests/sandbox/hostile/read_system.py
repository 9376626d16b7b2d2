"""Read system secrets: /etc/shadow, /etc/passwd, root's home, the host's /proc/1/environ."""
from _bgtp import attempt, read, resign, until_go

until_go()
for path in ("/etc/shadow", "/etc/passwd", "/root/.bashrc", "/root/.ssh/id_rsa", "/home",
             "/etc/hostname", "/var/run/postgresql/.s.PGSQL.5432"):
    attempt(f"read{path}", read(path))
resign()
