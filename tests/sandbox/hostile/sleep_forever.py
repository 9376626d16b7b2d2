"""Never answer the first go (sleep 60 s at most)."""
import time

from _bgtp import until_go

until_go()
time.sleep(60)
