"""Fake hardware modules for the firmware tests (never the real Pi-only packages)."""
