"""The OpenAPI document: it matches the routes, and the app keeps to it (schemathesis)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kalimambo.web.http.appconfig import AppConfig
from tests.conftest import PIN

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402

from kalimambo.web.http.openapi import document  # noqa: E402

METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE"}


def routes_of(app: Any) -> set[tuple[str, str]]:
    found = set()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/v1"):
            continue
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        path = re.sub(r"\{[^}]*\(.*?\):", "{", path)
        for method in rule.methods & METHODS:
            found.add((method.lower(), path))
    return found


def documented() -> set[tuple[str, str]]:
    return {(method, path) for path, item in document()["paths"].items()
            for method in item if method in {m.lower() for m in METHODS}}


def test_every_route_is_documented_and_nothing_else(app: Any) -> None:
    routes = routes_of(app)
    assert ("get", "/api/v1/host/seats/{seat_id}/me") in routes
    assert routes == documented()


def test_the_document_is_served(client: Any) -> None:
    answer = client.get("/api/v1/openapi.json")
    assert answer.status_code == 200 and answer.json["openapi"].startswith("3.1")


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, dict[str, str]]]:
    """A table with three seats (one hosted), a host token and a seat token, started."""
    from kalimambo.web.http.app import create_app

    data = Path(tmp_path_factory.mktemp("openapi")) / "data"
    app = create_app(AppConfig(testing=True, data_dir=data, host_pin=PIN, runner="inline",
                               join_url="http://192.0.2.10/", heartbeat_s=0.2))
    client = app.test_client()
    host = client.post("/api/v1/host", json={"pin": PIN}).json["token"]
    seat = client.post("/api/v1/join", json={"name": "Ana"}).json["token"]
    client.post("/api/v1/join", json={"name": "Ben"})
    client.post("/api/v1/host/seats", json={"name": "a/b"},
                headers={"Authorization": f"Bearer {host}"})
    yield app, {"host": host, "seat": seat}
    app.extensions["kalimambo"].close()


def error_shape(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every refusal is {"error": {"code", "message"}} and nothing else."""
    if response.status_code >= 400:
        body = response.json()
        assert set(body) == {"error"}, body
        assert set(body["error"]) == {"code", "message"}, body
        assert all(isinstance(v, str) and v for v in body["error"].values()), body
    return None


SKIP = {("GET", "/api/v1/events")}  # an endless stream: covered by the server tests
IDENTITY = {"Accept-Encoding": "identity"}
"""Schemathesis calls the app through Werkzeug's test client, which does not undo the
gzip (web/http/compress.py) that the Accept-Encoding of its requests asks for."""
EXAMPLES = 25


def check_operation(strategy: Any, headers: dict[str, str], wanted: list[Any]) -> None:
    """Run one operation's generated cases (a bounded number) with these headers."""

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              phases=[Phase.explicit, Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(case: Any) -> None:
        case.headers = {**(case.headers or {}), **IDENTITY, **headers}
        case.call_and_validate(checks=wanted)

    run()


def _checks() -> list[Any]:
    """No 5xx, every answer as documented (status, content type, body), errors in shape."""
    from schemathesis import checks as st_checks

    wanted: list[Any] = [st_checks.not_a_server_error, error_shape]
    for name in ("response_schema_conformance", "status_code_conformance",
                 "content_type_conformance"):
        check = getattr(st_checks, name)  # fails loudly if schemathesis renames one
        wanted.append(check)
    return wanted


CHECKS = _checks()


@pytest.mark.slow
def test_schemathesis_over_every_route(seeded: tuple[Any, dict[str, str]]) -> None:
    """Every operation, a bounded number of generated requests each, as host and seat:
    no 5xx, answers as documented, every error in the API's shape."""
    app, tokens = seeded
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
    wanted = CHECKS
    seen = set()
    for result in schema.get_all_operations():
        operation = result.ok()
        if (operation.method.upper(), operation.path) in SKIP:
            continue
        seen.add((operation.method.lower(), operation.path))
        security = operation.definition.raw.get("security") or []
        scheme = next(iter(security[0]), None) if security else None
        headers = {"Authorization": f"Bearer {tokens[scheme]}"} if scheme else {}
        check_operation(operation.as_strategy(), headers, wanted)
    # schemathesis leaves out the document's own route; everything else was run
    assert seen == documented() - {("get", "/api/v1/events"), ("get", "/api/v1/openapi.json")}


@pytest.mark.slow
def test_schemathesis_stateful_hosted_seats(tmp_path: Path) -> None:
    """Chains along the document's links: a hosted seat made, then viewed, picked for
    and removed by the id its answer gave (the id never holds a "/"); every scenario
    starts from an empty lobby."""
    from kalimambo.web.http.app import create_app

    app = create_app(AppConfig(testing=True, data_dir=tmp_path / "data", host_pin=PIN,
                               runner="inline", join_url="http://192.0.2.10/"))
    client = app.test_client()
    host = client.post("/api/v1/host", json={"pin": PIN}).json["token"]
    seat = client.post("/api/v1/join", json={"name": "Ana"}).json["token"]
    tokens = {"host": host, "seat": seat}
    # The state machine walks the hosted seats' operations only: with every route in
    # play, a bounded run may spend its examples elsewhere and never follow the link.
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app).include(
        path_regex=r"^/api/v1/host/(seats|remove)")
    seen: list[tuple[str, int]] = []

    class Table(schema.as_state_machine()):  # type: ignore[misc]
        def setup(self) -> None:
            client.post("/api/v1/host/new", json={"keep_seats": False},
                        headers={"Authorization": f"Bearer {host}"})

        def before_call(self, case: Any) -> None:
            security = case.operation.definition.raw.get("security") or []
            scheme = next(iter(security[0]), None) if security else None
            case.headers = {**(case.headers or {}), **IDENTITY}
            if scheme:
                case.headers["Authorization"] = f"Bearer {tokens[scheme]}"

        def after_call(self, response: Any, case: Any) -> None:
            seen.append((case.operation.path, response.status_code))

        def validate_response(self, response: Any, case: Any,
                              additional_checks: Any = None, **kwargs: Any) -> None:
            case.validate_response(response, checks=CHECKS)

    try:
        Table.run(settings=settings(max_examples=60, stateful_step_count=8, deadline=None,
                                    derandomize=True,
                                    database=None, suppress_health_check=list(HealthCheck)))
    finally:
        app.extensions["kalimambo"].close()
    linked = {path for path, status in seen if status == 200 and "{seat_id}" in path}
    assert linked, seen  # an id from POST /host/seats was followed to the seat's routes
