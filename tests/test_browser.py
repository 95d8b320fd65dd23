"""The dashboard in a real headless Chromium (Debian's /usr/bin/chromium + chromedriver via
Selenium with an explicit driver path: no browser downloads, no selenium-manager).

The dashboard server runs for real (werkzeug in a thread) on a free loopback port against
the test Redis.  Screenshots land in ``test-artifacts/``.  Under ``CI=true`` a missing
browser fails the test instead of skipping it.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cardarena.store import retention
from cardarena.store.connection import client_for
from cardarena.store.matches import MatchStore
from cardarena_dashboard import create_app
from werkzeug.serving import make_server

from .dashboard_data import (
    LEAGUE,
    LONG_NAME,
    XSS,
    Seeded,
    finish_match,
    seed,
    seed_schedules,
    store_faulted_match,
    store_game_match,
    store_timed_match,
)

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"

_missing = not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists())
if _missing and os.environ.get("CI", "").lower() != "true":
    pytest.skip(
        "chromium / chromedriver not installed (apt-get install chromium chromium-driver)", allow_module_level=True
    )

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture
def seeded(redis_url: str, key_prefix: str) -> Seeded:
    return seed(redis_url)


@pytest.fixture
def server(redis_url: str, key_prefix: str) -> Iterator[str]:
    app = create_app({"REDIS_URL": redis_url, "POLL_MS": 300})
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, name="dashboard-test-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()
        thread.join(10)
        httpd.server_close()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[webdriver.Chrome]:
    assert not _missing, f"CI=true but {CHROMIUM} / {CHROMEDRIVER} are missing"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,1000",
    ):
        options.add_argument(arg)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(tmp_path / "chromium-profile", ignore_errors=True)


def _shot(driver: webdriver.Chrome, name: str, width: int = 1280) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    height = driver.execute_script("return document.body.scrollHeight")
    driver.set_window_size(width, min(4000, max(800, int(height) + 40)))
    driver.save_screenshot(str(path))
    return path


def _no_console_errors(driver: webdriver.Chrome) -> None:
    errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    assert not errors, errors


def test_standings_update_live_in_a_real_browser(
    server: str, seeded: Seeded, browser: webdriver.Chrome, redis_url: str
) -> None:
    browser.get(f"{server}/tournaments/cup")
    table = browser.find_element(By.ID, "standings-table")
    rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert len(rows) == 3
    assert XSS in table.text  # shown as text, never run
    assert browser.execute_script("return window.__xss === undefined")
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.ci rect.ci-bar")) == 3
    plot = browser.find_element(By.CSS_SELECTOR, "img.plot")
    assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", plot) == 640
    updated = browser.find_element(By.CSS_SELECTOR, "#standings .updated").text
    assert updated.startswith(f"{len(seeded.finished)} finished matches")
    # The page carries the table's ETag: while nothing changes, the polls answer 304 and the
    # table is not re-rendered under the reader's eyes.
    polls = "return performance.getEntriesByType('resource').filter(e => e.name.includes('/standings.part')).length"
    WebDriverWait(browser, 15).until(lambda d: d.execute_script(polls) >= 2)
    assert browser.find_element(By.ID, "standings").get_attribute("data-updated") is None
    _shot(browser, "standings")

    finish_match(redis_url, seeded, seeded.pending[1])  # a new result arrives while the page is open
    expected = f"{len(seeded.finished)} finished matches"
    # The live refresh replaces the element; one read may catch the old one as it goes.
    WebDriverWait(browser, 15, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: d.find_element(By.CSS_SELECTOR, "#standings .updated").text.startswith(expected)
    )
    assert browser.find_element(By.ID, "standings").get_attribute("data-updated")
    _no_console_errors(browser)


def test_replay_viewer_in_a_real_browser(
    server: str, seeded: Seeded, browser: webdriver.Chrome, redis_url: str
) -> None:
    mid = seeded.finished[0]
    replay = MatchStore(client_for(redis_url)).replay(mid)
    assert replay is not None
    hands = replay["deals"][0]["hands"]
    browser.get(f"{server}/matches/{mid}?pov=all&step=0")
    shown = {c.get_attribute("title") for c in browser.find_elements(By.CSS_SELECTOR, ".view-box .card")}
    assert set(hands[0]) | set(hands[1]) <= shown
    _shot(browser, "replay-all-open")

    browser.get(f"{server}/matches/{mid}?pov=spectator&step=0")
    spectator = {c.get_attribute("title") for c in browser.find_elements(By.CSS_SELECTOR, ".view-box .card")}
    assert not spectator & (set(hands[0]) | set(hands[1]))

    browser.get(f"{server}/matches/{mid}?pov=0&step=3")
    assert browser.find_element(By.ID, "step-index").text == "3"
    browser.find_element(By.ID, "step-next").click()
    WebDriverWait(browser, 10, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: d.find_element(By.ID, "step-index").text == "4"
    )
    first = replay["deals"][0]["actions"][3]["action"]
    assert first in browser.find_element(By.ID, "current-action").text
    browser.find_element(By.TAG_NAME, "body").send_keys("\ue012")  # ArrowLeft: keyboard stepping (our JS)
    WebDriverWait(browser, 10, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: d.find_element(By.ID, "step-index").text == "3"
    )
    _shot(browser, "replay-seat0")
    _no_console_errors(browser)

    browser.get(f"{server}/matches?tournament=cup")
    assert len(browser.find_elements(By.CSS_SELECTOR, "table.list tbody tr")) == 12
    _shot(browser, "matches")


def test_schedules_and_bots_pages_in_a_real_browser(
    server: str, seeded: Seeded, browser: webdriver.Chrome, redis_url: str
) -> None:
    schedules = seed_schedules(redis_url)
    browser.get(f"{server}/")
    browser.find_element(By.LINK_TEXT, "Tournaments").click()
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.ID, "schedule-hourly"))
    rows = browser.find_elements(By.CSS_SELECTOR, "table.schedules tbody tr")
    assert [r.get_attribute("id") for r in rows] == ["schedule-hourly", "schedule-nightly", "schedule-broken"]
    nightly = browser.find_element(By.ID, "schedule-nightly").text
    assert "all registered bots" in nightly and "Nightly <b>all</b>" in nightly  # text, not markup
    assert XSS in browser.find_element(By.ID, "schedule-hourly").text
    assert "not created" in browser.find_element(By.ID, "schedule-broken").text
    assert browser.execute_script("return window.__xss === undefined")
    _shot(browser, "schedules")
    # the last run's link leads to that tournament, whose page explains what the rating covers
    browser.find_element(By.CSS_SELECTOR, "#schedule-hourly a").click()
    WebDriverWait(browser, 10).until(lambda d: d.current_url.endswith(f"/tournaments/{schedules.run}"))
    note = browser.find_element(By.ID, "rating-note").text
    assert "over all of its Glaves matches, in every tournament" in note
    # the bots list, from the site navigation, links each bot's page
    browser.find_element(By.LINK_TEXT, "Bots").click()
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "table.bots tbody tr"))
    names = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "table.bots tbody td:first-child a")]
    # in the order people read names: the markup is punctuation, so XSS files under "script"
    assert names == ["alpha", "beta", XSS]
    _shot(browser, "bots")
    browser.find_element(By.LINK_TEXT, XSS).click()
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.TAG_NAME, "h1").text == f"Bot {XSS}")
    assert browser.execute_script("return window.__xss === undefined")
    # when it was registered as a date, and what each of its numbers counts
    assert browser.find_element(By.CSS_SELECTOR, "table.fields td.when").text.endswith(" UTC")
    matches = browser.find_element(By.ID, "stat-matches")
    assert "(a no-show plays none)" in matches.text and "a no-show" in browser.find_element(By.ID, "stat-forfeits").text
    _shot(browser, "bot")
    _no_console_errors(browser)


PHONE = (390, 844)
"""A phone's screen (CSS pixels)."""


def _phone(driver: webdriver.Chrome) -> None:
    """Make the browser a phone: a 390 x 844 touch screen at device scale 2, in Chrome's mobile
    mode, where ``<meta name="viewport">`` applies as on a phone and a page wider than the
    screen widens the layout viewport (``window.innerWidth``), shown zoomed out."""
    metrics = {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 2, "mobile": True}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})


def _phone_shot(driver: webdriver.Chrome, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"phone-{name}.png"))


def _rect(driver: webdriver.Chrome, element: Any) -> dict[str, float]:
    return dict(driver.execute_script("return arguments[0].getBoundingClientRect().toJSON()", element))


LOADED = "return document.readyState === 'complete'"


def _tap(driver: webdriver.Chrome, element: Any) -> None:
    """A finger's tap on the middle of ``element`` (touch events, scrolled into view first)."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    box = _rect(driver, element)
    # the touch lands on the screen: where the page shows the element, zoomed out or not
    scale, left, top = driver.execute_script(
        "var v = window.visualViewport; return [v.scale, v.offsetLeft, v.offsetTop]"
    )
    point = {
        "x": (box["left"] + box["width"] / 2 - left) * scale,
        "y": (box["top"] + box["height"] / 2 - top) * scale,
    }
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]})
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_every_page_kind_fits_a_phone_screen(
    server: str, browser: webdriver.Chrome, redis_url: str, key_prefix: str
) -> None:
    """On a phone no page is wider than the screen (it would open zoomed out, its text tiny): a
    long bot_name wraps, a wide table scrolls inside its own box, which a keyboard can focus
    (and so scroll); the rating plot is the narrow one, shown at its own size; the navigation
    is a finger's size and a form field does not make the phone zoom in."""
    store_timed_match(redis_url, "think-pruned", (LONG_NAME, XSS))  # its replay pruned, its think times kept
    assert retention.prune(client_for(redis_url), older_than_days=30, now=time.time() + 40 * 86400).replays == 1
    wide, _ = store_game_match(redis_url, "gleek", 3)  # its seat table has 16 columns until the ruff ends (step 19)
    long, _ = store_game_match(redis_url, "glaves", 3, deals=5)  # 255 moves
    store_faulted_match(redis_url, "review-phone", (LONG_NAME, XSS))
    store_timed_match(redis_url, "think-phone", (LONG_NAME, XSS))  # think times: their table and column
    seeded = seed(redis_url)
    seed_schedules(redis_url)
    league = seed(redis_url, tournament="league", entrants=LEAGUE, finished=24)
    _phone(browser)
    pages = {
        "home": "/",
        "tournaments": "/tournaments",
        "tournament": "/tournaments/league",
        "matches": "/matches?tournament=league",
        "bots": "/bots",
        "bot": f"/bots/{LONG_NAME}",
        "games": "/games",
        "leaderboard": "/games/glaves?retired=1",
        "replay-faults": "/matches/review-phone?pov=0&step=5",
        "replay-think": "/matches/think-phone?pov=0&step=8",
        "replay-open": f"/matches/{league.finished[0]}?pov=all&step=5",
        "replay-wide": f"/matches/{wide}?pov=all&step=10",
        "match-running": f"/matches/{seeded.pending[0]}",
        "match-pruned": "/matches/think-pruned",
        "moves": "/matches/review-phone/moves?pov=1",
        "moves-long": f"/matches/{long}/moves?pov=all",
        "api": "/api",
    }
    for name, path in pages.items():
        browser.get(server + path)
        inner, width = browser.execute_script("return [window.innerWidth, document.documentElement.scrollWidth]")
        # wider than the phone, a page widens the layout viewport (innerWidth) and opens zoomed out
        assert width <= inner == PHONE[0], (path, width, inner)
        for link in browser.find_elements(By.CSS_SELECTOR, "header.top nav a"):
            assert _rect(browser, link)["height"] >= 44, (path, link.text)
        _phone_shot(browser, name)
    # the think times: each seat's in a table of their own, the step's on its action line
    browser.get(f"{server}/matches/think-phone?pov=0&step=8")
    assert "answered in" in browser.find_element(By.ID, "current-action").text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#think tbody tr")) == 2
    # the replay's seat table is wider than the phone: it scrolls in its box, by keyboard too
    browser.get(f"{server}/matches/{wide}?pov=all&step=10")
    box = browser.find_element(By.CSS_SELECTOR, ".view .table-scroll")
    assert browser.execute_script("return arguments[0].scrollWidth > arguments[0].clientWidth", box)
    assert box.get_attribute("tabindex") == "0" and box.get_attribute("role") == "region"
    # the rating plot: the narrow layout, drawn at (about) its own size, so its labels keep theirs
    browser.get(f"{server}/tournaments/league")
    plot = browser.find_element(By.CSS_SELECTOR, "img.plot")
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return arguments[0].complete", plot))
    assert "narrow=1" in browser.execute_script("return arguments[0].currentSrc", plot)
    natural = browser.execute_script("return arguments[0].naturalWidth", plot)
    shown = _rect(browser, plot)
    assert natural == 360 and shown["width"] >= 0.9 * natural and shown["right"] <= PHONE[0]
    # 16 px: focusing a field does not zoom the phone into it
    browser.get(f"{server}/matches")
    for field in browser.find_elements(By.CSS_SELECTOR, ".filters input, .filters select"):
        assert float(field.value_of_css_property("font-size").removesuffix("px")) >= 16
    _no_console_errors(browser)


def test_replay_is_stepped_by_tapping_on_a_phone(
    server: str, browser: webdriver.Chrome, redis_url: str, key_prefix: str
) -> None:
    """On a phone the replay's four buttons sit side by side, each a finger's size; a tap on
    next or prev moves the step, and the new step opens at the stepper, its action and view
    below it, not at the top of the page a screen of seats and faults away."""
    store_faulted_match(redis_url, "review-phone", (LONG_NAME, XSS))
    _phone(browser)
    browser.get(f"{server}/matches/review-phone?pov=0&step=5")
    boxes = [_rect(browser, browser.find_element(By.ID, f"step-{k}")) for k in ("first", "prev", "next", "last")]
    for box in boxes:
        assert box["width"] >= 44 and box["height"] >= 44, box
        assert box["left"] >= 0 and box["right"] <= PHONE[0], box
    assert len({round(box["top"]) for box in boxes}) == 1  # one row
    assert [box["left"] for box in boxes] == sorted(box["left"] for box in boxes)
    for pill in browser.find_elements(By.CSS_SELECTOR, "nav.pov a"):
        assert _rect(browser, pill)["height"] >= 44, pill.text
    wait = WebDriverWait(browser, 10, ignored_exceptions=(StaleElementReferenceException,))
    for button, expected in (("step-next", "6"), ("step-next", "7"), ("step-prev", "6")):
        _tap(browser, browser.find_element(By.ID, button))
        wait.until(lambda d, step=expected: _step(d) == step and d.execute_script(LOADED))
        assert "pov=0" in browser.current_url
        for shown in ("stepper", "current-action"):
            box = _rect(browser, browser.find_element(By.ID, shown))
            assert box["top"] >= 0 and box["bottom"] <= PHONE[1], (expected, shown, box)
    _phone_shot(browser, "replay-stepped")
    _no_console_errors(browser)


def _desktop(driver: webdriver.Chrome) -> None:
    """Back from :func:`_phone` to the desktop window (1280 wide, a mouse)."""
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
    driver.set_window_size(1280, 1000)


def _ax(driver: webdriver.Chrome, selector: str) -> tuple[str, dict[str, Any]]:
    """What a screen reader is told of the first element matching ``selector``: its role in
    Chromium's accessibility tree and its properties (``expanded``, ``focusable``...)."""
    root = driver.execute_cdp_cmd("DOM.getDocument", {})["root"]["nodeId"]
    node = driver.execute_cdp_cmd("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    ax = driver.execute_cdp_cmd("Accessibility.getPartialAXTree", {"nodeId": node, "fetchRelatives": False})
    first = ax["nodes"][0]
    return first["role"]["value"], {p["name"]: p["value"].get("value") for p in first.get("properties", [])}


def test_a_refused_answers_reason_opens_by_tap_and_by_keyboard(
    server: str, browser: webdriver.Chrome, redis_url: str, key_prefix: str
) -> None:
    """The reason a refused answer was given is not behind a hover (a phone and a keyboard have
    none): a disclosure under the row opens it on a tap, on the phone's screen, and on Enter;
    a screen reader is told it is a collapsed, then expanded, control."""
    store_faulted_match(redis_url, "review-phone", (LONG_NAME, XSS))
    _phone(browser)
    browser.get(f"{server}/matches/review-phone?pov=0&step=5")
    reason = browser.find_element(By.CSS_SELECTOR, "#faults details.reason q")
    summary = browser.find_element(By.CSS_SELECTOR, "#faults details.reason summary")
    assert not reason.is_displayed()
    assert _ax(browser, "#faults details.reason summary") == (
        "DisclosureTriangle",
        {"focusable": True, "expanded": False},
    )
    assert _rect(browser, summary)["height"] >= 44  # a finger's size
    _tap(browser, summary)
    WebDriverWait(browser, 5).until(lambda d: reason.is_displayed())
    assert reason.text == "<b>not yours</b>"  # the bot's words, as text
    box = _rect(browser, reason)
    assert box["left"] >= 0 and box["right"] <= PHONE[0], box  # readable without scrolling sideways
    assert _ax(browser, "#faults details.reason summary")[1]["expanded"] is True
    _phone_shot(browser, "refused-reason")
    # a keyboard: Tab reaches it, Enter opens and closes it
    _desktop(browser)
    browser.get(f"{server}/matches/review-phone?pov=0&step=5")
    summary = browser.find_element(By.CSS_SELECTOR, "#faults details.reason summary")
    summary.send_keys(Keys.ENTER)
    assert browser.find_element(By.CSS_SELECTOR, "#faults details.reason q").is_displayed()
    assert browser.switch_to.active_element == summary
    summary.send_keys(Keys.ENTER)
    assert not browser.find_element(By.CSS_SELECTOR, "#faults details.reason q").is_displayed()
    _no_console_errors(browser)


_PINNED = """var box = arguments[0], rows = box.querySelectorAll('tr'), out = [];
var left = box.getBoundingClientRect().left;
for (var r of rows) {
  var c = r.cells[arguments[1]];
  var at = c.getBoundingClientRect(), y = at.top + at.height / 2;
  var shown = at.top >= 0 && at.bottom <= innerHeight ? c.contains(document.elementFromPoint(at.left + 4, y)) : null;
  out.push([at.left - left, at.width, shown, getComputedStyle(c).backgroundColor]);
}
return out;"""
"""Each row's cell ``arguments[1]`` of the box ``arguments[0]``: its left (from the box's),
width, whether it is on top where it is shown (``null``: not wholly on the screen), and its
background colour."""


def _scroll_to_end(driver: webdriver.Chrome, box: Any) -> None:
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'}); arguments[0].scrollLeft = 1e6", box)
    WebDriverWait(driver, 5).until(lambda d: "more-left" in str(box.get_attribute("class")).split())


def test_a_wide_tables_first_column_stays_as_it_scrolls_on_a_phone(
    server: str, browser: webdriver.Chrome, redis_url: str, key_prefix: str
) -> None:
    """On a phone the standings (rank and bot), the match list (match) and a bot's
    head-to-head (opponent) keep their first column in place, opaque, while the rest scrolls
    sideways under it; a long bot name wraps there rather than taking the screen; the box
    fades at an edge that has more beyond it, and the pinned column casts a shadow once
    scrolled; a live update keeps the table where the reader scrolled it. On a desktop, where
    the tables fit, none of it shows."""
    league = seed(redis_url, tournament="league", entrants=LEAGUE, finished=24)
    _phone(browser)
    browser.get(f"{server}/tournaments/league")
    box = browser.find_element(By.CSS_SELECTOR, "#standings .table-scroll")
    assert browser.execute_script("return arguments[0].scrollWidth > arguments[0].clientWidth + 100", box)
    assert str(box.get_attribute("class")).split() == ["table-scroll", "more-right"]
    assert "gradient" in box.value_of_css_property("mask-image")  # the right edge fades
    width = _rect(browser, box)["width"]
    bots = browser.execute_script(_PINNED, box, 1)
    assert all(w <= 0.45 * width for _, w, _, _ in bots), bots  # LONG_NAME wraps: the rest keeps room
    _scroll_to_end(browser, box)
    assert "more-right" not in str(box.get_attribute("class"))
    assert box.value_of_css_property("mask-image") == "none"  # a pinned column: it casts a shadow instead
    ranks, bots = browser.execute_script(_PINNED, box, 0), browser.execute_script(_PINNED, box, 1)
    for (rank_left, rank_width, rank_on_top, _), (bot_left, _, bot_on_top, colour) in zip(ranks, bots, strict=True):
        assert abs(rank_left) < 1 and abs(bot_left - rank_width) < 1, (ranks, bots)
        assert rank_on_top is not False and bot_on_top is not False, (ranks, bots)  # over the rest
        assert colour.startswith("rgb("), bots  # opaque
    assert sum(bool(on_top) for _, _, on_top, _ in bots) >= 3, bots
    shadow = browser.execute_script(
        "return getComputedStyle(arguments[0].querySelector('tbody td:nth-child(2)'), '::after').backgroundImage", box
    )
    assert "gradient" in shadow
    last = browser.find_element(By.CSS_SELECTOR, "#standings tbody tr:first-child td:last-child")
    assert _rect(browser, last)["right"] <= _rect(browser, box)["right"] + 1  # the last column reached
    _phone_shot(browser, "standings-scrolled")
    # a new result arrives: the table is replaced, and stays scrolled where it was
    scrolled = browser.execute_script("return arguments[0].scrollLeft", box)
    finish_match(redis_url, league, league.pending[1])
    WebDriverWait(browser, 15).until(
        lambda d: d.find_element(By.ID, "standings").get_attribute("data-updated") is not None
    )
    box = browser.find_element(By.CSS_SELECTOR, "#standings .table-scroll")
    assert browser.execute_script("return arguments[0].scrollLeft", box) == scrolled
    assert "more-left" in str(box.get_attribute("class")).split()
    for path, table, pinned in (
        ("/matches?tournament=league", "table.list", 0),
        (f"/bots/{LONG_NAME}", "#head-to-head", 0),
    ):
        browser.get(server + path)
        box = browser.find_element(By.CSS_SELECTOR, table).find_element(By.XPATH, "..")
        assert "more-right" in str(box.get_attribute("class")).split(), path
        _scroll_to_end(browser, box)
        cells = browser.execute_script(_PINNED, box, pinned)
        astray = [(row, cell) for row, cell in enumerate(cells) if abs(cell[0]) >= 1 or cell[2] is False]
        assert not astray, (path, astray)
        assert sum(bool(on_top) for _, _, on_top, _ in cells) >= 3, (path, cells)
    # a match's think times (seat and bot pinned, as in its seat and fault tables)
    store_timed_match(redis_url, "think-phone", (LONG_NAME, XSS))
    browser.get(f"{server}/matches/think-phone?pov=0&step=8")
    box = browser.find_element(By.CSS_SELECTOR, "#think .table-scroll")
    assert "more-right" in str(box.get_attribute("class")).split()
    _scroll_to_end(browser, box)
    seats, bots = browser.execute_script(_PINNED, box, 0), browser.execute_script(_PINNED, box, 1)
    for (seat_left, seat_width, seat_on_top, _), (bot_left, bot_width, bot_on_top, _) in zip(seats, bots, strict=True):
        assert abs(seat_left) < 1 and abs(bot_left - seat_width) < 1, (seats, bots)
        assert seat_on_top is not False and bot_on_top is not False, (seats, bots)
        assert bot_width <= 0.45 * _rect(browser, box)["width"], bots  # LONG_NAME wraps
    _no_console_errors(browser)
    # a desktop: the standings fit, so nothing is pinned over anything, no fade, no shadow
    _desktop(browser)
    browser.get(f"{server}/tournaments/league")
    box = browser.find_element(By.CSS_SELECTOR, "#standings .table-scroll")
    assert browser.execute_script("return arguments[0].scrollWidth <= arguments[0].clientWidth", box)
    assert str(box.get_attribute("class")).split() == ["table-scroll"]
    assert box.value_of_css_property("mask-image") == "none"
    bots = browser.execute_script(_PINNED, box, 1)
    assert all(w > 400 for _, w, _, _ in bots[-1:]), bots  # LONG_NAME (the last row) on one line, as before
    _no_console_errors(browser)


def test_the_games_rules_use_a_phones_width(server: str, browser: webdriver.Chrome) -> None:
    """On a phone each game's rules sit below its name and players, as wide as the table (not
    a narrow third column seven screens long); a screen reader still reads a table of cells
    under their column headers. A desktop keeps the three columns."""
    _phone(browser)
    browser.get(f"{server}/games")
    table = browser.find_element(By.CSS_SELECTOR, "table.games")
    width = _rect(browser, table)["width"]
    rows = browser.find_elements(By.CSS_SELECTOR, "table.games tbody tr")
    assert len(rows) >= 14
    for row in rows:
        name, rules = (
            _rect(browser, row.find_element(By.CSS_SELECTOR, "td")),
            _rect(browser, row.find_element(By.CSS_SELECTOR, "td.rules")),
        )
        assert rules["width"] >= 0.9 * width and rules["top"] >= name["bottom"] - 1, (row.get_attribute("id"), rules)
    height = browser.execute_script("return document.documentElement.scrollHeight")
    assert height < 5 * PHONE[1]
    assert _ax(browser, "table.games")[0] == "table"
    assert _ax(browser, "table.games th.rules")[0] == "columnheader"
    assert _ax(browser, "#game-coup td.rules")[0] == "cell"
    _phone_shot(browser, "games")
    _desktop(browser)
    browser.get(f"{server}/games")
    cells = browser.find_elements(By.CSS_SELECTOR, "#game-coup td")
    assert len({round(_rect(browser, c)["top"]) for c in cells}) == 1  # one row of three cells
    assert browser.find_element(By.CSS_SELECTOR, "table.games th.rules").is_displayed()
    _no_console_errors(browser)


def _step(driver: webdriver.Chrome) -> str:
    return str(driver.find_element(By.ID, "step-index").text)


def _key(driver: webdriver.Chrome, key: str, **mods: bool) -> bool:
    """Dispatch a keydown on the page; whether the page took it (``defaultPrevented``)."""
    script = (
        "var e = new KeyboardEvent('keydown', Object.assign({key: arguments[0], bubbles: true, cancelable: true},"
        " arguments[1])); document.body.dispatchEvent(e); return e.defaultPrevented;"
    )
    return bool(driver.execute_script(script, key, mods))


def test_replay_is_stepped_by_keyboard_and_the_back_button(
    server: str, seeded: Seeded, browser: webdriver.Chrome, redis_url: str
) -> None:
    mid = seeded.finished[1]
    replay = MatchStore(client_for(redis_url)).replay(mid)
    assert replay is not None
    last = str(sum(len(d["actions"]) + 1 for d in replay["deals"]) - 1)
    wait = WebDriverWait(browser, 10, ignored_exceptions=(StaleElementReferenceException,))
    browser.get(f"{server}/matches/{mid}?step=5&pov=1")  # a deep link
    assert _step(browser) == "5" and "seat 1 (" in browser.find_element(By.CSS_SELECTOR, "nav.pov a.active").text
    # The first Tab reaches the skip link, shown while focused; then the site navigation.
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    focused = browser.switch_to.active_element
    assert focused.text == "skip to content" and focused.location["x"] >= 0
    # Alt+← is the browser's Back and Ctrl+→ a word jump: the stepper leaves them alone.
    assert not _key(browser, "ArrowLeft", altKey=True)
    assert not _key(browser, "ArrowRight", ctrlKey=True)
    assert _step(browser) == "5"
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    wait.until(lambda d: _step(d) == "6")
    assert "pov=1" in browser.current_url  # the point of view is kept
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    wait.until(lambda d: _step(d) == last)
    assert "match over" in browser.find_element(By.ID, "current-action").text
    browser.back()  # each step is a page of its own: Back returns to the step before
    wait.until(lambda d: _step(d) == "6")
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.HOME)
    wait.until(lambda d: _step(d) == "0")
    assert "next to act: seat" in browser.find_element(By.ID, "current-action").text
    # A stepper link reached by Tab shows a visible focus ring.
    link = browser.find_element(By.ID, "step-next")
    browser.execute_script("arguments[0].focus()", link)
    ring = browser.execute_script(
        "var s = getComputedStyle(arguments[0]); return [s.outlineStyle, parseFloat(s.outlineWidth)]", link
    )
    assert ring[0] != "none" and ring[1] >= 2
    _no_console_errors(browser)


def test_api_reference_and_move_list_in_a_real_browser(
    server: str, browser: webdriver.Chrome, redis_url: str, key_prefix: str
) -> None:
    """The navigation's API link opens the reference; a schema link lands on that schema. The
    replay's "every move" link opens the move list at the current step; a deal folds away."""
    mid, replay = store_game_match(redis_url, "glaves", 3, deals=5)
    plays = sum(len(d["actions"]) for d in replay["deals"])
    assert plays > 250
    browser.get(f"{server}/")
    browser.find_element(By.LINK_TEXT, "API").click()
    WebDriverWait(browser, 10).until(lambda d: d.current_url == f"{server}/api")
    assert browser.find_element(By.TAG_NAME, "h1").text == "API reference"
    body = browser.find_element(By.ID, "op-post-admin-tournaments")
    assert "Authorization: Bearer <token>" in body.text
    _shot(browser, "api-reference")
    browser.set_window_size(1280, 700)
    body.find_element(By.LINK_TEXT, "TournamentDefinition").click()
    WebDriverWait(browser, 10).until(lambda d: d.current_url.endswith("#schema-TournamentDefinition"))
    target = browser.find_element(By.ID, "schema-TournamentDefinition")
    top = browser.execute_script("return arguments[0].getBoundingClientRect().top", target)
    assert -2 < top < 100  # scrolled to it (a fraction of a pixel above the top is sub-pixel scrolling)
    assert browser.find_element(By.ID, "openapi-json").get_attribute("href") == f"{server}/api/v1/openapi.json"

    browser.get(f"{server}/matches/{mid}?step=120&pov=1")
    browser.find_element(By.ID, "all-moves").click()
    WebDriverWait(browser, 10).until(lambda d: d.current_url.endswith("/moves?pov=1#step-120"))
    entry = browser.find_element(By.ID, "step-120")
    assert browser.execute_script("return getComputedStyle(arguments[0]).fontWeight", entry) == "700"  # :target
    assert len(browser.find_elements(By.CSS_SELECTOR, "ol.moves li")) == plays + 5  # every step: 5 deals and the plays
    _shot(browser, "moves")
    browser.set_window_size(1280, 700)
    first = browser.find_element(By.ID, "deal-1")
    step1 = browser.find_element(By.ID, "step-1")
    assert step1.is_displayed()
    first.find_element(By.TAG_NAME, "summary").click()
    WebDriverWait(browser, 5).until(lambda d: not step1.is_displayed())
    entry.find_element(By.TAG_NAME, "a").click()
    WebDriverWait(browser, 10).until(lambda d: _step(d) == "120")
    assert "pov=1" in browser.current_url
    _no_console_errors(browser)


def _crosstable_scores(spec: Any) -> list[float]:
    """The results of the crosstable's league: alpha outscores everyone by 2 (significant over
    five deal sets), beta and gamma trade small wins and losses by the deal (not significant),
    the others draw; the same deal (its seed) scores the same in either seating."""
    x, y = spec.seats
    if "alpha" in spec.seats:
        return [2.0 if b == "alpha" else 0.0 for b in spec.seats]
    if {x, y} == {"beta", "gamma"}:  # by deal set: +0.5, +1.5, -0.5, +1.5, -0.5 for beta
        swing = float(int(str(spec.seed)[-3:]) % 3)  # 0, 1 or 2 by the deal
        return [1.5 + swing if b == "beta" else 2.0 for b in spec.seats]
    return [1.0, 1.0]


def test_the_crosstable_matrix_in_a_real_browser(
    server: str, browser: webdriver.Chrome, redis_url: str, key_prefix: str
) -> None:
    """The tournament page's crosstable: rows and columns in the standings' order, a hostile
    name as text, each cell coloured by who was ahead (strongly where significant) with its
    numbers in its title; a pair that never met is marked so, and fills in live when it does.
    On a phone the page still fits: the matrix scrolls in its box with each row's bot pinned."""
    import json
    from urllib.request import urlopen

    from cardarena.store.tournaments import TournamentStore
    from cardarena_tournament import lifecycle

    from .tournament_fixtures import counted_tournament, fixed_result

    bots = [XSS, "alpha", "beta", LONG_NAME, "gamma"]
    left = counted_tournament(
        redis_url,
        "xt",
        bots,
        players=2,
        deal_sets=5,
        scores=_crosstable_scores,
        skip=lambda spec: set(spec.seats) == {XSS, LONG_NAME},  # these two have not met yet
    )
    with urlopen(f"{server}/api/v1/tournaments/xt/crosstable") as answer:
        api = json.load(answer)
    assert api["bots"][0] == "alpha" and len(api["items"]) == 2 * (10 - 1)
    browser.get(f"{server}/tournaments/xt")
    table = browser.find_element(By.ID, "crosstable-table")
    rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert [r.find_element(By.CSS_SELECTOR, "th").text for r in rows] == api["bots"]
    assert browser.execute_script("return window.__xss === undefined")
    items = {(i["bot"], i["opponent"]): i for i in api["items"]}
    colours: dict[str, set[str]] = {}
    for r, bot in enumerate(api["bots"]):
        cells = rows[r].find_elements(By.CSS_SELECTOR, "td.x")
        assert len(cells) == len(bots)
        for c, opponent in enumerate(api["bots"]):
            cell, title = cells[c], str(cells[c].get_attribute("title"))
            kind = set(str(cell.get_attribute("class")).split()) - {"x"}
            if c == r:
                assert kind == {"x-self"}
                continue
            item = items.get((bot, opponent))
            if item is None:
                assert kind == {"x-none"} and cell.text == "·" and title == f"{bot} and {opponent} never met"
                continue
            mean, even = item["mean_diff"], 0.0 if item["significant"] else 0.005  # what shows as 0.00
            expected = "x-win" if mean > even else "x-loss" if mean < -even else "x-even"
            assert kind == {expected, *(["x-sig"] if item["significant"] else [])}, (bot, opponent, kind)
            assert f"{item['ahead']}–{item['behind']}–{item['level']}" in cell.text
            assert title.startswith(
                f"{bot} v {opponent}: {item['matches']} matches, ahead {item['ahead']}, behind {item['behind']}, "
                f"level {item['level']}; "
            )
            assert f"95 % CI [{item['ci_low']:+.2f}, {item['ci_high']:+.2f}], 5 deal sets: " in title
            assert title.endswith(": significant" if item["significant"] else ": not significant")
            colours.setdefault(" ".join(sorted(kind)), set()).add(cell.value_of_css_property("background-color"))
    # alpha's row and column, beta against gamma (+0.5, not significant) and back, the draws
    assert set(colours) == {"x-sig x-win", "x-loss x-sig", "x-win", "x-loss", "x-even"}
    assert items[("beta", "gamma")]["mean_diff"] == 0.5 and not items[("beta", "gamma")]["significant"]
    assert all(len(shades) == 1 for shades in colours.values()), colours
    assert len({next(iter(shades)) for shades in colours.values()}) == len(colours)  # each kind its colour
    assert "+2.00*" in rows[0].text  # alpha: significant, marked beyond its colour
    _shot(browser, "crosstable")

    # the two meet: their cells fill in while the page is open (the region polls, as the standings do)
    r = client_for(redis_url)
    ms, ts = MatchStore(r), TournamentStore(r)
    for spec in left:
        assert ms.complete(spec.match_id, "i", fixed_result(spec, bots, _crosstable_scores), {})
    lifecycle.count_matches(ts, ms, [spec.match_id for spec in left])
    lifecycle.settle(ts, "xt", force=True)
    assert ts.require("xt").status == "finished"
    row = api["bots"].index(XSS) + 1
    column = api["bots"].index(LONG_NAME) + 2  # after the row's number (a td; its bot is a th)
    cell = f"#crosstable-table tbody tr:nth-child({row}) td:nth-of-type({column})"
    WebDriverWait(browser, 15, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: "x-even" in str(d.find_element(By.CSS_SELECTOR, cell).get_attribute("class"))
    )
    assert browser.find_element(By.CSS_SELECTOR, cell).text == "0.00\n0–0–10"
    _no_console_errors(browser)

    _phone(browser)
    browser.get(f"{server}/tournaments/xt")
    inner, width = browser.execute_script("return [window.innerWidth, document.documentElement.scrollWidth]")
    assert width <= inner == PHONE[0]  # a column's screen-reader name (absolute) stays in the box too
    box = browser.find_element(By.CSS_SELECTOR, "#crosstable .table-scroll")
    assert browser.execute_script("return arguments[0].scrollWidth > arguments[0].clientWidth", box)
    assert box.get_attribute("role") == "region" and "more-right" in str(box.get_attribute("class")).split()
    _scroll_to_end(browser, box)
    names = browser.execute_script(_PINNED, box, 1)
    assert all(abs(left - names[0][0]) < 1 for left, _, _, _ in names), names  # the bots stay in place
    assert all(w <= 0.45 * _rect(browser, box)["width"] for _, w, _, _ in names), names  # LONG_NAME wraps
    assert sum(bool(on_top) for _, _, on_top, _ in names) >= 3, names
    last = browser.find_element(By.CSS_SELECTOR, "#crosstable tbody tr:first-child td:last-child")
    assert _rect(browser, last)["right"] <= _rect(browser, box)["right"] + 1  # the last column reached
    _phone_shot(browser, "crosstable-scrolled")
    _no_console_errors(browser)
