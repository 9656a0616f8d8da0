"""Kalimambo: web."""
