# SPDX-License-Identifier: Apache-2.0
"""The docs' explorers in a real browser (issue 23): headless Chromium (Debian's ``chromium`` and
``chromium-driver``, driven by Selenium) opens every page that has explorers from the built docs on
disk, checks that no JavaScript error is logged, drives each explorer through its controls and
steps, compares the cells it shows with the model's frames (``cuda.coop._models``), and saves a
screenshot of each explorer into the build (``_screenshots/NAME.png``). Skipped, saying why, where
no browser is installed (``.ci/run`` installs one)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cuda.coop import _models

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
PAGES = sorted({e.page for e in _models.EXPLORERS})


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    webdriver = pytest.importorskip("selenium.webdriver", reason="the browser test needs selenium (.[test])")
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip("no Chromium here: install Debian's chromium and chromium-driver (as .ci/run does)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1400,1100",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _open(browser: Any, html_dir: Path, page: str) -> None:
    browser.get((html_dir / f"{page}.html").as_uri())
    browser.get_log("browser")  # what loading logged is checked by the caller


def _errors(browser: Any) -> list[str]:
    return [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def _shown(figure: Any) -> list[list[list[str]]]:
    """The cells the explorer shows: per panel, per row, the cells' texts."""
    return figure.parent.execute_script(
        """
        return [...arguments[0].querySelectorAll('.coop-stage .coop-panel')].map(p =>
            [...p.querySelectorAll('.coop-row')].map(r =>
                [...r.querySelectorAll('.coop-cell')].map(c => c.dataset.text)));
        """,
        figure,
    )


def _model(frame: _models.Frame) -> list[list[list[str]]]:
    return [[[c.text for c in r.cells] for r in p.rows] for p in frame.panels]


def _choose(figure: Any, choice: dict[str, Any]) -> None:
    from selenium.webdriver.support.ui import Select

    for name, value in choice.items():
        select = Select(figure.find_element("css selector", f'select[data-param="{name}"]'))
        if select.first_selected_option.get_attribute("value") != _models.option_text(value):
            select.select_by_value(_models.option_text(value))


def _choices_to_check(explorer: _models.Explorer) -> list[dict[str, Any]]:
    """The default choice, and each option of each control changed from it where that is a valid
    call (every option is shown at least once where the default allows it)."""
    default = explorer.default()
    out = [default]
    for p in explorer.params:
        for option in p.options:
            choice = {**default, p.name: option}
            if choice != default and explorer.valid(**choice):
                out.append(choice)
    return out


def test_pages_without_javascript_have_the_static_diagrams(html_dir: Path) -> None:
    """Every explorer's figure carries the SVG of its default choice in the page itself."""
    for page in PAGES:
        text = (html_dir / f"{page}.html").read_text()
        for explorer in (e for e in _models.EXPLORERS if e.page == page):
            figure = re.search(
                rf'<figure class="coop-explorer" id="explorer-{explorer.name}".*?</figure>', text, re.S
            )
            assert figure, f"{page}: no explorer {explorer.name}"
            assert re.search(r'<div class="coop-static"><svg [^>]*role="img"', figure.group(0)), explorer.name
    assert "<svg" in (html_dir / "index.html").read_text()  # the index shows one diagram


@pytest.mark.parametrize("page", PAGES)
def test_explorers_play_the_models_frames(page: str, browser: Any, html_dir: Path) -> None:
    _open(browser, html_dir, page)
    errors = _errors(browser)
    assert not errors, f"{page}: JavaScript errors on load: {errors}"
    shots = html_dir / "_screenshots"
    shots.mkdir(exist_ok=True)
    for explorer in (e for e in _models.EXPLORERS if e.page == page):
        figure = browser.find_element("id", f"explorer-{explorer.name}")
        assert "coop-live" in figure.get_attribute("class"), f"{explorer.name}: the player did not start"
        assert not figure.find_element("css selector", ".coop-static").is_displayed()
        # the default choice, stepped through frame by frame
        frames = explorer.frames(**explorer.default())
        for at, frame in enumerate(frames):
            assert figure.get_attribute("data-frame") == str(at)
            assert figure.find_element("css selector", ".coop-caption").text == frame.caption
            assert _shown(figure) == _model(frame), (explorer.name, at)
            if at + 1 < len(frames):
                figure.find_element("css selector", 'button[data-action="next"]').click()
        assert figure.find_element("css selector", 'button[data-action="next"]').get_attribute("disabled")
        browser.execute_script("arguments[0].scrollIntoView()", figure)
        figure.screenshot(str(shots / f"{explorer.name}.png"))
        figure.find_element("css selector", 'button[data-action="first"]').click()
        # every option of every control: the first and the last frame
        for choice in _choices_to_check(explorer):
            _choose(figure, choice)
            assert figure.get_attribute("data-choice") == explorer.case_key(choice)
            frames = explorer.frames(**choice)
            assert _shown(figure) == _model(frames[0]), (explorer.name, choice)
            figure.find_element("css selector", 'button[data-action="last"]').click()
            assert _shown(figure) == _model(frames[-1]), (explorer.name, choice)
            figure.find_element("css selector", 'button[data-action="first"]').click()
    errors = _errors(browser)
    assert not errors, f"{page}: JavaScript errors while driving the explorers: {errors}"


def test_an_invalid_combination_moves_to_a_valid_one(browser: Any, html_dir: Path) -> None:
    """Picking a warp algorithm with a thread count that is not whole (drawn) warps is not a call
    the library takes: the explorer keeps the pick and changes the other controls."""
    explorer = _models.BY_NAME["merge_sort"]  # power-of-two thread counts only: all offered are
    assert all(explorer.valid(**c) for c in explorer.choices())
    _open(browser, html_dir, "sorting")
    figure = browser.find_element("id", "explorer-shuffle")
    _choose(figure, {"mode": "offset", "distance": -1})
    from selenium.webdriver.support.ui import Select

    Select(figure.find_element("css selector", 'select[data-param="mode"]')).select_by_value("up")
    choice = figure.get_attribute("data-choice").split("|")
    assert choice[2] == "up" and _models.BY_NAME["shuffle"].valid(
        threads=int(choice[0]), items=int(choice[1]), mode="up", distance=int(choice[3])
    )
    assert "not a valid call" in figure.find_element("css selector", ".coop-message").text
    assert not _errors(browser)
