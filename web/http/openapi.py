"""The OpenAPI 3.1 document of ``/api/v1``, built from Python dicts and served at
``/api/v1/openapi.json``.

It describes every route (a test checks it against the app's url_map) and every
answer, refusals included, so schemathesis can check the app against it.  The views'
schemas (the public view, ``/me`` and all inside them) are made from their one
description, ``web/core/viewtypes.py``, by ``typeschema``; the rest is written here.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from kalimambo.engine.pacing import PACINGS
from kalimambo.web.core.seats import NAME_MAX
from kalimambo.web.core.viewtypes import (
    ChangeMessage,
    LightsView,
    PlaybackView,
    PrivateView,
    PublicView,
    ReplayView,
)
from kalimambo.web.http.limits import MAX_BODY
from kalimambo.web.http.typeschema import components_of, ref

JSON = "application/json"

INT = {"type": "integer"}
LED_FRAME = {"type": "array", "items": {
    "type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255},
    "minItems": 3, "maxItems": 3}}
"""One colour per LED, in the strip's order."""
NAME = {"type": "string", "minLength": 1, "maxLength": NAME_MAX,
        "description": "any script; at least one visible character; compared folded "
                       "(NFKC, case, look-alikes: docs/LIMITS.md)", "examples": ["Oma"]}
STR = {"type": "string"}
BOOL = {"type": "boolean"}
PACING = {"enum": list(PACINGS)}

VIEWS = components_of(PublicView, PrivateView, LightsView, PlaybackView, ReplayView,
                      ChangeMessage)
"""The views' schemas, by their TypedDicts' names."""

SCHEMAS: dict[str, Any] = {
    **VIEWS,
    "Error": {
        "type": "object", "required": ["error"], "additionalProperties": False,
        "properties": {"error": {
            "type": "object", "required": ["code", "message"], "additionalProperties": False,
            "properties": {"code": STR, "message": STR}}},
    },
    "Record": {"type": "object", "required": ["format", "track_length", "players", "setup",
                                              "rounds"],
               "properties": {"format": {"const": "kalimambo-record/1"},
                              "track_length": INT,
                              "players": {"type": "array", "items": STR},
                              "setup": {"type": "object"},
                              "rounds": {"type": "array", "items": {"type": "object"}}}},
    "SeatToken": {"type": "object", "required": ["name", "id", "token"],
                  "properties": {"name": STR, "id": STR, "token": STR}},
    "Pick": {"type": "object", "required": ["round", "card", "resolved"],
             "properties": {"round": INT, "card": INT, "resolved": BOOL}},
}

ERROR_TEXT = {
    400: "bad input (the code names it)", 401: "no or unknown token", 403: "not allowed",
    404: "no such thing", 405: "wrong method", 408: "the body took too long to arrive",
    409: "not now (the code says why)", 413: f"body over {MAX_BODY} bytes",
    415: "not JSON", 429: "too many at once or too many tries (Retry-After)",
    503: "too many requests, connections or event streams in all, or hints not "
         "available",
    507: "storage_full: the change could not be saved; nothing changed",
}
COMMON = (404, 405, 429, 503)
WITH_BODY = (400, 408, 413, 415, 507)


def _errors(*codes: int) -> dict[str, Any]:
    return {str(code): {"description": ERROR_TEXT[code],
                        "content": {JSON: {"schema": ref("Error")}}}
            for code in sorted(set(codes) | set(COMMON))}


def _ok(schema: dict[str, Any], status: int = 200, text: str = "OK") -> dict[str, Any]:
    return {str(status): {"description": text, "content": {JSON: {"schema": schema}}}}


def _body(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return {"required": False, "content": {JSON: {"schema": schema}}}


SINCE = {"name": "since", "in": "query", "required": False,
         "description": "only games finished at or after this time (Unix seconds)",
         "schema": {"type": "string", "examples": ["1764547200"]}}
SEAT_AUTH: list[dict[str, list[str]]] = [{"seat": []}]
HOST_AUTH: list[dict[str, list[str]]] = [{"host": []}]
SEAT_ID = {"name": "seat_id", "in": "path", "required": True,
           "schema": {"type": "string", "pattern": "^[^/]+$"}}
PICK_BODY = _body({"round": INT, "card": INT})
VIEW = ref(PublicView.__name__)
PRIVATE_VIEW = ref(PrivateView.__name__)
LIGHTS = ref(LightsView.__name__)
PLAYBACK = ref(PlaybackView.__name__)
REPLAY = ref(ReplayView.__name__)


def _op(summary: str, responses: dict[str, Any], *, security: list[Any] | None = None,
        body: dict[str, Any] | None = None, parameters: list[Any] | None = None
        ) -> dict[str, Any]:
    op: dict[str, Any] = {"summary": summary, "responses": responses,
                          "security": security or []}
    if body is not None:
        op["requestBody"] = body
    if parameters:
        op["parameters"] = parameters
    return op


def _linked(op: dict[str, Any], status: str,
            links: dict[str, tuple[str, dict[str, str]]]) -> dict[str, Any]:
    """``op`` with OpenAPI links from its ``status`` answer (for stateful testing)."""
    op["responses"][status]["links"] = {
        name: ({"operationId": target, "requestBody": {"id": params["id"]}}
               if "id" in params else {"operationId": target, "parameters": params})
        for name, (target, params) in links.items()}
    return op


def _host(summary: str, ok: dict[str, Any], *codes: int, body: dict[str, Any] | None = None
          ) -> dict[str, Any]:
    return _op(summary, {**ok, **_errors(401, 403, *WITH_BODY, *codes)}, security=HOST_AUTH,
               body=body if body is not None else _body({}))


PATHS: dict[str, Any] = {
    "/api/v1/openapi.json": {"get": _op("this document", _ok({"type": "object"}))},
    "/api/v1/state": {"get": _op("the public view", {**_ok(VIEW), **_errors()})},
    "/api/v1/events": {"get": _op(
        "Server-Sent Events: the public view (a seat's own with ?token=) as each data: "
        "line, at once and at every change; with ?patches=1 the whole view first, then "
        "each change as a 'patch' event whose data is a ChangeMessage", {
            "200": {"description": "an endless event stream",
                    "content": {"text/event-stream": {"schema": STR}}},
            **_errors(503)},
        parameters=[{"name": "token", "in": "query", "required": False,
                     "schema": STR},
                    {"name": "patches", "in": "query", "required": False,
                     "schema": {"enum": ["1"]}}])},
    "/api/v1/record": {"get": _op("this game's record", {**_ok(ref("Record")),
                                                        **_errors(409)})},
    "/api/v1/games": {"get": _op("the archive", {**_ok({
        "type": "object", "required": ["games"],
        "properties": {"games": {"type": "array", "items": {"type": "object"}}}}),
        **_errors()})},
    "/api/v1/stats": {"get": _op(
        "every player over the finished games (names compared as joins compare them)", {
            **_ok({"type": "object", "required": ["games", "players"], "properties": {
                "games": {"type": "integer", "minimum": 0},
                "players": {"type": "array", "items": {
                    "type": "object",
                    "required": ["name", "games", "wins", "best", "mean", "rammed", "dung",
                                 "for_kali", "bot"],
                    "properties": {"name": STR, "games": INT, "wins": INT, "best": INT,
                                   "mean": {"type": "number"}, "rammed": INT, "dung": INT,
                                   "for_kali": INT, "bot": BOOL}}}}}),
            **_errors(400)}, parameters=[SINCE])},
    "/api/v1/games.csv": {"get": _op(
        "one row per player per finished game", {
            "200": {"description": "CSV with a header row",
                    "content": {"text/csv": {"schema": STR}}},
            **_errors(400)}, parameters=[SINCE])},
    "/api/v1/games/{game_id}/record": {"get": _op(
        "an archived game's record", {**_ok(ref("Record")), **_errors(409)},
        parameters=[{"name": "game_id", "in": "path", "required": True,
                     "schema": {"type": "integer", "minimum": 0,
                                "maximum": 9223372036854775807}}])},
    "/api/v1/leds": {"get": _op("the strip's frame", {**_ok({
        "type": "object", "required": ["leds", "seen"],
        "properties": {"leds": LED_FRAME, "seen": LED_FRAME},
        "description": "leds: the frame the strip is sent (after gamma, the brightness "
                       "cap and the power limit); seen: the same as a person sees the "
                       "LEDs, before those"}), **_errors(503)})},
    "/api/v1/local": {"get": _op("what the table's own screen may know (no secret)", {**_ok({
        "type": "object", "required": ["local"],
        "properties": {"local": BOOL, "host_qr": BOOL}}), **_errors()})},
    "/api/v1/join": {"post": _op(
        "take a seat", {**_ok(ref("SeatToken"), 201, "seated"), **_errors(409, *WITH_BODY)},
        body=_body({"name": NAME}))},
    "/api/v1/me": {"get": _op("the seat's private view", {**_ok(PRIVATE_VIEW),
                                                          **_errors(401)},
                              security=SEAT_AUTH)},
    "/api/v1/pick": {"post": _op("pick a card", {**_ok(ref("Pick")),
                                                 **_errors(401, 403, 409, *WITH_BODY)},
                                 security=SEAT_AUTH, body=PICK_BODY)},
    "/api/v1/hint": {"get": _op("a suggested card", {**_ok({
        "type": "object", "required": ["round", "card", "code", "params"],
        "properties": {"round": INT, "card": INT, "code": STR, "params": {"type": "object"}}}),
        **_errors(401, 403, 409, 503)}, security=SEAT_AUTH)},
    "/api/v1/host": {
        "post": _op("host login: the PIN, the host key or the first-host code", {
            **_ok({"type": "object", "required": ["token"], "properties": {"token": STR}}),
            **_errors(403, *WITH_BODY)}, body=_body({"pin": STR, "key": STR})),
        "get": _op("is this a host token?", {**_ok({"type": "object", "required": ["host"],
                                                    "properties": {"host": BOOL}}),
                                             **_errors(401, 403)}, security=HOST_AUTH),
    },
    "/api/v1/host/start": {"post": _host("start the game", _ok(VIEW), 409,
                                         body=_body({"setup": {"type": "object"}}))},
    "/api/v1/host/bots": {"post": _host("computer players take seats", _ok({
        "type": "object", "required": ["names"],
        "properties": {"names": {"type": "array", "items": STR}}}, 201, "seated"), 409,
        body=_body({"count": INT, "level": STR}))},
    "/api/v1/host/seats": {"post": _linked(
        _host("a seat played from the host page", _ok(ref("SeatToken"), 201, "seated"), 409,
              body=_body({"name": NAME}, ("name",))), "201", {
            "HostedSeatView": ("hostedSeatMe", {"seat_id": "$response.body#/id"}),
            "HostedSeatPick": ("hostedSeatPick", {"seat_id": "$response.body#/id"}),
            "RemoveHostedSeat": ("hostRemove", {"id": "$response.body#/id"})})},
    "/api/v1/host/remove": {"post": {**_host("remove a seat (by id, or by name)", _ok(VIEW),
                                             409, body=_body({"id": STR, "name": STR})),
                                     "operationId": "hostRemove"}},
    "/api/v1/host/seats/{seat_id}/me": {"get": {**_op(
        "a hosted seat's private view", {**_ok(PRIVATE_VIEW), **_errors(401, 403)},
        security=HOST_AUTH, parameters=[SEAT_ID]), "operationId": "hostedSeatMe"}},
    "/api/v1/host/seats/{seat_id}/pick": {"post": {
        **_host("pick for a hosted seat", _ok(ref("Pick")), 409, body=PICK_BODY),
        "parameters": [SEAT_ID], "operationId": "hostedSeatPick"}},
    "/api/v1/host/undo": {"post": _host("take the last round back", _ok(VIEW), 409)},
    "/api/v1/host/placed": {"post": _host("the pieces the view's placing named are moved",
                                          _ok(VIEW), 409)},
    "/api/v1/host/new": {"post": _host("a new game", _ok(VIEW), 409,
                                       body=_body({"keep_seats": BOOL}))},
    "/api/v1/host/settings": {"post": _host("hints, pacing and the booth's settings", _ok({
        "type": "object", "required": ["hints", "pacing", "pause_ms", "attract",
                                       "attract_after_s", "sound"],
        "properties": {"hints": BOOL, "pacing": PACING,
                       "pause_ms": INT, "attract": BOOL, "attract_after_s": INT,
                       "sound": BOOL}}),
        body=_body({"hints": BOOL, "pacing": STR, "pause_ms": INT, "attract": BOOL,
                    "attract_after_s": INT, "sound": BOOL}))},
    "/api/v1/host/replay": {"post": _host("play a stored game back (changes nothing)",
                                          _ok(REPLAY), 404, 409,
                                          body=_body({"game_id": INT}, ("game_id",)))},
    "/api/v1/host/replay/stop": {"post": _host("stop the replay", _ok(VIEW), 409)},
    "/api/v1/host/new-day": {"post": _host("the day's leaderboard starts again from now", _ok({
        "type": "object", "required": ["day_start"],
        "properties": {"day_start": {"type": "number"}}}))},
    "/api/v1/host/lights/retry": {"post": _host("restart a failed strip", _ok(LIGHTS),
                                                409)},
    "/api/v1/host/next": {"post": _host("the playback's next step", _ok(PLAYBACK),
                                        409)},
    "/api/v1/screen/next": {"post": _op(
        "the playback's next step, from the table's own screen (step pacing) or a host",
        {**_ok(PLAYBACK), **_errors(403, 409, *WITH_BODY)},
        security=[{}, *HOST_AUTH], body=_body({}))},
    "/api/v1/host/skip": {"post": _host("end the playback at once", _ok(PLAYBACK),
                                        409)},
}


@cache
def document() -> dict[str, Any]:
    """The whole OpenAPI 3.1 document."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "Kalimambo table", "version": "1",
                 "description": "The table's JSON API, version 1 "
                                "(docs/API.md). Every refusal is "
                                "{\"error\": {\"code\", \"message\"}} and changes nothing."},
        "paths": PATHS,
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {
                "seat": {"type": "http", "scheme": "bearer",
                         "description": "a seat token from POST /api/v1/join"},
                "host": {"type": "http", "scheme": "bearer",
                         "description": "a host token from POST /api/v1/host"},
            },
        },
    }
