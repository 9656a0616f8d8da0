"""Live connections: every change of the table, sent on as it happens.

The Server-Sent Events fan-out to the pages (``stream``), the table's end of the lights
socket (``lightslink``), and ``hub``, which hangs both on the table, keeps its clock
(auto pacing, the next local midnight) and passes the buttons' presses back as commands.
"""
