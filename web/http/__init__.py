"""The HTTP side: the Flask app, its routes, and its defences against hostile clients.

The app factory (``app``), the JSON API (``api``) and its OpenAPI document (``openapi``),
the pages (``pages``, with web/templates, web/static and web/i18n) and the archive's routes
(``archive_routes``); in front of them the door (``door``: connections over the caps,
refused as accepted), the guard (``guard``: per-address limits and body deadlines), what
the app adds (``hardening``) and every limit in one place (``limits``).
"""
