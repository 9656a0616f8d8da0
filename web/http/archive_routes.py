"""The archive's routes: statistics, the CSV export and the printable score sheet.

Read-only: none of them changes a game.  Finished games are added up by
``kalimambo.web.storage.archive``; these routes only read the query and shape the answer.
"""

from __future__ import annotations

import math

from flask import Blueprint, Response, current_app, render_template, request

from kalimambo.web.core.names import fold
from kalimambo.web.core.refusals import bad_input
from kalimambo.web.http.api import answer, hub
from kalimambo.web.http.pages import LANGUAGES, TEMPLATES_DIR, join_url, messages, qr_svg
from kalimambo.web.storage.archive import Archive, csv_text, local_time, score_sheet, statistics

bp = Blueprint("archive", __name__, template_folder=TEMPLATES_DIR)


def archive() -> Archive:
    found: Archive = current_app.extensions["kalimambo.archive"]
    return found


def since() -> float | None:
    """``?since=<Unix seconds>``: only games finished at or after it."""
    raw = request.args.get("since")
    if raw is None or raw == "":
        return None
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise bad_input("bad_since", "since must be a time in Unix seconds, "
                                       "for example 1764547200.")
    return value


@bp.get("/api/v1/stats")
def stats() -> Response:
    """Every player over the finished games: games, wins, best, mean and the causes."""
    return answer(statistics(archive().results(since()), fold))


@bp.get("/api/v1/games.csv")
def games_csv() -> Response:
    """One row per player per finished game, for a spreadsheet."""
    response = Response(csv_text(archive().results(since())), mimetype="text/csv")
    response.headers["Content-Disposition"] = 'attachment; filename="kalimambo-games.csv"'
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/games/<int:game_id>/sheet")
def sheet(game_id: int) -> Response:
    """The score pad of one game: black on white, one A4 page when printed."""
    lang = request.args.get("lang")
    if lang not in LANGUAGES:
        lang = request.accept_languages.best_match(LANGUAGES) or "en"
    table = hub().table
    with table.lock:
        found = score_sheet(table.store, game_id)
    text = messages()[lang]
    if found is None:
        html = render_template("sheet_missing.html", lang=lang, t=text, game_id=game_id)
        return Response(html, status=404, mimetype="text/html")
    html = render_template("sheet.html", lang=lang, t=text, sheet=found,
                           started=local_time(found.started, text) if found.started else "")
    return Response(html, mimetype="text/html")


@bp.get("/games/<int:game_id>/sheet-qr.svg")
def sheet_qr(game_id: int) -> Response:
    """The sheet's address as a QR code (under the join address, which phones reach):
    the board shows it at the end of a game, so a phone can open and print the sheet."""
    response = Response(qr_svg(f"{join_url()}games/{game_id}/sheet"),
                        mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-cache"
    return response
