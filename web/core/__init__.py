"""The table's core: its rules as a pure state machine and the views made from it.

The state (lobby, picking, playing, finished), the checked commands it applies, the typed
happenings it returns, the seats and their names, the playback's cursor, the public and
private views, their JSON Patch, and the one refusal (``Refusal``) the table raises. It
builds on the engine alone and uses no web framework, thread, database or clock: time is
a number passed in (tests/project/test_layers.py checks it).
"""
