"""Create up to 2,000,000 empty files in /tmp: a tmpfs bounds bytes, not inodes, and each costs kernel memory."""
import os

from _bgtp import report, resign, until_go

CEILING = 2_000_000

until_go()
made = 0
try:
    os.mkdir("/tmp/bomb")
    while made < CEILING:
        os.close(os.open(f"/tmp/bomb/{made}", os.O_CREAT | os.O_WRONLY, 0o600))
        made += 1
except OSError as error:
    report("inode-bomb", f"BLOCKED errno={error.errno} after {made} files")
else:
    report("inode-bomb", f"SUCCEEDED {made} files")
resign()
