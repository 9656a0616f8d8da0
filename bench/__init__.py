"""Kalimambo: bench."""
