"""Crash before saying anything."""
raise SystemExit("hostile bot crashing at start")
