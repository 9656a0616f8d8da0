"""The JSON API, version 1 (docs/API.md).

Thin: each route reads its input, calls the table, and answers.  The table checks
everything and raises ``Refusal`` before changing anything.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask import Blueprint, Flask, Response, current_app, request

from kalimambo.web.core.refusals import Kind, Refusal, bad_input
from kalimambo.web.http.limits import MAX_DEPTH
from kalimambo.web.live.hub import Hub
from kalimambo.web.table.hostlogin import is_own_screen
from kalimambo.web.table.table import Table

bp = Blueprint("api", __name__, url_prefix="/api/v1")


def hub() -> Hub:
    """What a route reaches the table by: ``hub().table`` (its commands check their
    input), and beside it the streams and the lights."""
    found = app_hub(current_app)
    if found is None:
        raise RuntimeError("this app has no hub: make it with create_app")
    return found


def app_hub(app: Flask) -> Hub | None:
    """The hub ``create_app`` put on ``app`` (None on an app made without one)."""
    found: Hub | None = app.extensions.get("kalimambo")
    return found


def answer(data: Any, status: int = 200) -> Response:
    return raw_answer(orjson.dumps(data), status)


def raw_answer(body: bytes, status: int = 200) -> Response:
    """JSON already encoded (the table's cached view), never cached on the way."""
    response = Response(body, status=status, mimetype="application/json")
    response.headers["Cache-Control"] = "no-store"
    return response


def bearer() -> str | None:
    """The token from ``Authorization: Bearer <token>``, or None."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def depth(value: Any) -> int:
    """How deeply arrays and objects nest in ``value`` (a scalar is 0), without recursion."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            stack.extend((child, level + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, level + 1) for child in item)
        else:
            deepest = max(deepest, level)
            continue
        deepest = max(deepest, level + 1)
    return deepest


def body() -> dict[str, Any]:
    """The request's JSON object; an empty body counts as ``{}``.

    Too big (over 4 KB, chunked or not) is refused before this by ``kalimambo.web.http.guard``
    (and Flask's MAX_CONTENT_LENGTH) with 413; nesting deeper than ``MAX_DEPTH``
    is 400 ``too_deep``.
    """
    data = request.get_data(cache=True)
    if not data.strip():
        return {}
    if request.mimetype != "application/json":
        raise Refusal(Kind.UNREADABLE, "not_json",
                      "Please send JSON (Content-Type: application/json).")
    try:
        parsed = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise bad_input("bad_json", "That request is not valid JSON.") from None
    if not isinstance(parsed, dict):
        raise bad_input("bad_json", "Please send a JSON object.")
    if depth(parsed) > MAX_DEPTH:
        raise bad_input("too_deep", f"That request nests more than {MAX_DEPTH} levels "
                                      "deep.")
    return parsed


# -- anyone ---------------------------------------------------------------------------
@bp.get("/state")
def state() -> Response:
    return raw_answer(hub().table.view_json)


@bp.get("/events")
def events() -> Response:
    """Server-Sent Events: every change as the whole view, or with ``?patches=1`` (the
    table's pages) as its patch; ``?token=`` (a seat's) marks that seat as connected."""
    stream = hub().stream(request.args.get("token") or bearer(),
                          patches=request.args.get("patches") == "1")
    response = Response(stream, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@bp.get("/record")
def record() -> Response:
    return answer(hub().table.records.record())


@bp.get("/games")
def games() -> Response:
    return answer({"games": hub().table.records.games()})


@bp.get("/games/<int(max=9223372036854775807):game_id>/record")
def game_record(game_id: int) -> Response:
    return answer(hub().table.records.game_record(game_id))


@bp.get("/leds")
def leds() -> Response:
    frame, seen = hub().lights_frame()
    return answer({"leds": [list(rgb) for rgb in frame],
                   "seen": [list(rgb) for rgb in seen]})


@bp.get("/local")
def local() -> Response:
    """What the table's own screen may know, and nothing secret: whether this request
    comes from it, and whether it may show the first-host QR code (``/host-qr.svg``)."""
    if not is_own_screen(request):
        return answer({"local": False})
    return answer({"local": True, "host_qr": hub().table.first_host_open()})


@bp.post("/join")
def join() -> Response:
    seat, token = hub().table.join(body().get("name"))
    return answer({"name": seat.name, "id": seat.id, "token": token}, 201)


# -- a seat ---------------------------------------------------------------------------
@bp.get("/me")
def me() -> Response:
    return answer(hub().table.me(bearer()))


@bp.post("/pick")
def pick() -> Response:
    data = body()
    return answer(hub().table.pick(bearer(), data.get("round"), data.get("card")))


@bp.get("/hint")
def hint() -> Response:
    return answer(hub().table.hint(bearer()))


# -- the host -------------------------------------------------------------------------
def host_only() -> Table:
    """The table, once the request's token is a host's (else 401/403 ``host_only``)."""
    table = hub().table
    table.check_host(bearer())
    return table


@bp.post("/host")
def host_login() -> Response:
    data = body()
    secret = data.get("key", data.get("pin"))
    return answer({"token": hub().table.host_login(secret, request.remote_addr or "?")})


@bp.get("/host")
def host_check() -> Response:
    host_only()
    return answer({"host": True})


@bp.post("/host/start")
def host_start() -> Response:
    table = host_only()
    data = body()
    table.start(data.get("setup"))
    return raw_answer(table.view_json)


@bp.post("/host/bots")
def host_bots() -> Response:
    table = host_only()
    data = body()
    names = table.add_bots(data.get("count"), data.get("level"))
    return answer({"names": names}, 201)


@bp.post("/host/seats")
def host_seat() -> Response:
    """A seat played from the host page, for a player without a phone."""
    table = host_only()
    seat, token = table.join(body().get("name"), hosted=True)
    return answer({"name": seat.name, "id": seat.id, "token": token}, 201)


@bp.post("/host/remove")
def host_remove() -> Response:
    table = host_only()
    data = body()
    if "id" in data:
        table.remove_seat(seat_id=data["id"])
    else:
        table.remove_seat(data.get("name"))
    return raw_answer(table.view_json)


@bp.get("/host/seats/<seat_id>/me")
def host_seat_me(seat_id: str) -> Response:
    """A hosted seat's private view, for the host page (no seat token needed).

    Seats are addressed by their ``id`` (never by name: a name may hold ``/``)."""
    table = host_only()
    return answer(table.hosted_me(seat_id))


@bp.post("/host/seats/<seat_id>/pick")
def host_seat_pick(seat_id: str) -> Response:
    table = host_only()
    data = body()
    return answer(table.hosted_pick(seat_id, data.get("round"), data.get("card")))


@bp.post("/host/undo")
def host_undo() -> Response:
    table = host_only()
    body()
    table.undo()
    return raw_answer(table.view_json)


@bp.post("/host/placed")
def host_placed() -> Response:
    """The host's "Done" after moving the pieces the view's ``placing`` named."""
    table = host_only()
    body()
    table.placed()
    return raw_answer(table.view_json)


@bp.post("/host/new")
def host_new() -> Response:
    table = host_only()
    table.new_game(body().get("keep_seats", True))
    return raw_answer(table.view_json)


@bp.post("/host/settings")
def host_settings() -> Response:
    table = host_only()
    return answer(table.settings(body()))


@bp.post("/host/new-day")
def host_new_day() -> Response:
    """The day's leaderboard starts again from now (kept across restarts)."""
    table = host_only()
    body()
    return answer({"day_start": table.new_day()})


@bp.post("/host/replay")
def host_replay() -> Response:
    """Play a stored game back on the strip and the board (changes no game); answers
    the view's ``replay``."""
    table = host_only()
    return answer(table.replay(body().get("game_id")))


@bp.post("/host/replay/stop")
def host_replay_stop() -> Response:
    table = host_only()
    body()
    table.stop_replay()
    return raw_answer(table.view_json)


@bp.post("/host/lights/retry")
def host_lights_retry() -> Response:
    host_only()
    body()
    return answer(hub().lights_retry())


@bp.post("/host/next")
def host_next() -> Response:
    """The playback's next step (any pacing); answers the view's ``playback``."""
    table = host_only()
    body()
    return answer(table.next_step())


@bp.post("/screen/next")
def screen_next() -> Response:
    """"Next" from the table's own screen (the board page on the Pi's screen), or from a
    host: the playback's next step, and nothing more.  The own screen may do it only
    while what plays waits for "next" (step pacing); a host in any pacing, as
    ``/host/next``.  Answers the view's ``playback``."""
    body()
    token = bearer()
    if token is not None:
        return answer(host_only().next_step())
    if not is_own_screen(request):
        raise Refusal(Kind.NOT_ALLOWED, "own_screen_only",
                      "Only the table's own screen or the host can show the next step.")
    return answer(hub().table.screen_next())


@bp.post("/host/skip")
def host_skip() -> Response:
    """Ends the playback at once; answers the view's ``playback``."""
    table = host_only()
    body()
    return answer(table.skip())


@bp.get("/openapi.json")
def openapi() -> Response:
    """This API described as OpenAPI 3.1 (web/http/openapi.py)."""
    from kalimambo.web.http.openapi import document

    return answer(document())
