"""Write outside the working directory: the referee library, /usr, /etc, the host's paths."""
import os

from _bgtp import TARGETS, attempt, resign, until_go


def write(path):
    def action():
        with open(path, "a") as handle:
            handle.write("pwned\n")
        return f"wrote {path}"
    return action


until_go()
targets = ["/opt/tabula/engines/__init__.py", "/opt/tabula/engines/pwned.py", "/opt/tabula/bot/pwned",
           "/usr/pwned", "/etc/pwned", "/pwned"]
targets += [os.path.join(TARGETS[k], "pwned") for k in ("project", "outside_dir") if k in TARGETS]
for path in targets:
    attempt(f"write-{path}", write(path))
resign()
