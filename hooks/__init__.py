"""Owners hear about their bots: webhook endpoints, signed deliveries with their log, and the events feed (SSE)."""
