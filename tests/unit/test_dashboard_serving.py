"""The API serves the built dashboard at / with a fallback for client routes, never shadowing the API."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from functions.api.dashboard import mount_dashboard
from functions.api.errors import install_error_handlers


def _app(static: Path) -> TestClient:
    app = FastAPI()

    @app.get("/api/v1/scoring/ping")
    def ping() -> dict[str, str]:
        return {"pong": "yes"}

    install_error_handlers(app)
    mount_dashboard(app, static)
    return TestClient(app)


@pytest.fixture
def built(tmp_path: Path) -> Path:
    static = tmp_path / "static"
    (static / "assets").mkdir(parents=True)
    (static / "index.html").write_text("<div id=root></div>")
    (static / "assets" / "app.js").write_text("console.log('dashboard')")
    (tmp_path / "secret.txt").write_text("not for the browser")
    return static


def test_client_routes_get_the_index_and_assets_are_served(built: Path) -> None:
    client = _app(built)

    for path in ("/", "/sessions/abc", "/analytics?criteria_hash=x"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.text == "<div id=root></div>"
    assert client.get("/assets/app.js").text == "console.log('dashboard')"
    assert client.get("/assets/missing.js").status_code == 404


def test_api_routes_win_and_unknown_api_paths_are_json_404(built: Path) -> None:
    client = _app(built)

    assert client.get("/api/v1/scoring/ping").json() == {"pong": "yes"}
    for path in ("/api/v1/scoring/nope", "/api", "/health/x"):
        response = client.get(path)
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"


def test_files_outside_the_build_are_never_served(built: Path) -> None:
    response = _app(built).get("/..%2Fsecret.txt")

    assert "not for the browser" not in response.text


def test_an_unbuilt_dashboard_says_how_to_build_it(tmp_path: Path) -> None:
    response = _app(tmp_path / "nothing").get("/")

    assert response.status_code == 404
    assert response.json()["code"] == "dashboard_not_built"
    assert "make dashboard" in response.json()["detail"]


def test_a_method_the_path_does_not_serve_is_405_naming_the_allowed_ones(built: Path) -> None:
    client = _app(built)

    for method, path, allow in [
        ("POST", "/api/v1/scoring/ping", "GET"),
        ("PUT", "/assets/app.js", "GET, HEAD"),
    ]:
        response = client.request(method, path)
        assert response.status_code == 405, (method, path)
        assert response.headers["allow"] == allow
        assert response.json()["code"] == "method_not_allowed"
    assert client.post("/api/v1/scoring/nope").status_code == 404
    assert client.delete("/sessions/abc").status_code == 404  # a page is not a resource another method acts on
