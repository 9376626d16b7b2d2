"""Answer the handshake with binary garbage and no newline."""
import sys
import time

sys.stdin.readline()
sys.stdout.buffer.write(bytes(range(256)) * 16)
sys.stdout.flush()
time.sleep(30)
