"""Kalimambo: firmware."""
