"""
The connection form in a real browser: Airflow's API server on loopback, Debian's Chromium driven by Playwright.

Adds a ``messagingplatform`` connection through the Connections page with our fields (API key, API secret,
Account ID, Base URL), saves it, presses Test in the list against the emulator and expects success, and saves
screenshots under ``build/browser/``. Run with ``make browser-test`` (``.ci/run`` runs it too).
"""

from __future__ import annotations

import os
import shutil

import pytest

from tests.support.paths import REPO

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SHOTS = REPO / "build" / "browser"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def api_server(platform, airflow_db, monkeypatch):
    from tests.support.airflow_api_harness import AirflowApiServer

    monkeypatch.setenv("AIRFLOW__CORE__TEST_CONNECTION", "Enabled")
    with AirflowApiServer(os.environ["AIRFLOW_HOME"]) as server:
        yield server


def test_add_and_test_a_connection_through_the_form(platform, api_server):
    from playwright.sync_api import expect, sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    conn_id = "messaging_platform_ui"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{api_server.url}/connections", wait_until="networkidle")
        page.get_by_role("button", name="Add Connection").click()
        page.locator("input[name=connection_id]").fill(conn_id)
        page.get_by_role("combobox").first.click()
        page.keyboard.type("Messaging Platform")
        page.keyboard.press("Enter")

        # Our form: login and password relabelled, host/port/schema hidden, our extra fields present.
        for label in ("API key", "API secret"):
            expect(page.get_by_text(label, exact=True)).to_be_visible()
        expect(page.locator("input[name=host]")).to_have_count(0)
        page.locator("input[name=login]").fill(platform.seed.api_key)
        page.locator("input[name=password]").fill(platform.seed.api_secret)
        page.get_by_text("Extra Fields", exact=True).click()
        for label in ("Account ID", "Base URL", "Platform time zone", "Allow plain http"):
            expect(page.get_by_text(label, exact=True)).to_be_visible()
        page.locator("input[name=element_account_id]").fill(str(platform.seed.account_id))
        page.locator("input[name=element_base_url]").fill(platform.base_url)
        page.screenshot(path=str(SHOTS / "connection-form.png"), full_page=True)
        page.get_by_role("button", name="Save").click()
        expect(page.get_by_text(conn_id)).to_be_visible()

        stored = api_server.api().get_connection(conn_id)
        assert stored["conn_type"] == "messagingplatform" and stored["login"] == platform.seed.api_key
        assert '"account_id": 1001' in stored["extra"] and platform.base_url in stored["extra"]

        # Airflow 3.3.2's Test button sends port 0 for a connection without a port and its API then refuses
        # the stored credentials (apache/airflow#73298, fixed upstream). Storing port 0 sidesteps that.
        api_server.api().update_connection(conn_id, {"port": 0}, conn_type="messagingplatform")
        page.reload(wait_until="networkidle")
        page.get_by_role("button", name="Test Connection").click()
        expect(page.get_by_text("Connected to account 1001")).to_be_visible(timeout=20_000)
        page.screenshot(path=str(SHOTS / "connection-test.png"), full_page=True)
        browser.close()

    tested = [r for r in platform.control.requests() if r["path"].endswith("/campaign")]
    assert tested and tested[-1]["status"] in (200, 204)  # the Test button reached the emulator
    assert (SHOTS / "connection-form.png").stat().st_size > 10_000
