"""What the app adds against hostile clients and failing disks (docs/LIMITS.md).

Kept apart from the app factory: the limits in front of the app (``kalimambo.web.http.guard``) and
the answer to a write the disk refused (``507 storage_full``, with the public view's
``storage`` telling every page at once).
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response

from kalimambo.web.http.api import app_hub
from kalimambo.web.http.guard import Guard
from kalimambo.web.http.statuses import error_body
from kalimambo.web.storage.store import StorageError


def storage_answer(error: StorageError) -> Response:
    body = error_body("storage_full", f"The table could not save that ({error.reason}): "
                                      "nothing was changed. Tell the host.")
    response = Response(body, status=507, mimetype="application/json")
    response.headers["Cache-Control"] = "no-store"
    return response


def register(app: Flask) -> None:
    """Put the guard in front of ``app`` and answer storage failures with 507."""
    app.wsgi_app = Guard(app.wsgi_app)  # type: ignore[method-assign]

    @app.errorhandler(StorageError)
    def storage_failed(error: StorageError) -> Any:
        hub = app_hub(app)
        if hub is not None:  # every page learns at once that changes are not kept
            hub.table.refresh()
        return storage_answer(error)
