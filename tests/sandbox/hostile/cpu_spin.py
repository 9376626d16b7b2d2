"""Spin the CPU instead of answering (for 20 s at most), then resign."""
import time

from _bgtp import resign, until_go

until_go()
end = time.monotonic() + 20
while time.monotonic() < end:
    pass
resign()
