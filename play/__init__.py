"""Playing a claimed match: everything between "claimed" and "reported" (``play.claimed`` tells the path)."""
