"""The viewer in real headless Chromium: the template overlay marks exactly the elements the
JSON names, the toggles work, and nothing of the shown page runs or reaches its origin."""

from __future__ import annotations

import http.server
import json
import os
import shutil
import tempfile
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import KEY, REPO, Server, start_server, stop_server

# Elements the view leaves out (they run code, embed documents or load): their paths in the
# JSON have no element to mark.
DROPPED = {
    "script",
    "noscript",
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "base",
    "link",
    "portal",
    "fencedframe",
}

# The dom path of an element, as the engine writes it (/html[1]/body[1]/div[3]).
DOM_PATH_JS = """
function domPath(el) {
  const steps = [];
  for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
    let i = 1;
    for (let s = e.previousElementSibling; s; s = s.previousElementSibling) {
      if (s.localName === e.localName) i++;
    }
    steps.unshift(e.localName + "[" + i + "]");
  }
  return "/" + steps.join("/");
}
"""


def _chromium() -> tuple[str, str] | None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    found = _chromium()
    if found is None:
        if os.environ.get("TEMPLEX_REQUIRE_BROWSER"):
            pytest.fail(
                "TEMPLEX_REQUIRE_BROWSER is set but chromium/chromedriver are missing "
                "(scripts/install-browser.sh)"
            )
        warnings.warn(
            "NOTICE: skipping browser tests: no chromium (scripts/install-browser.sh)", stacklevel=2
        )
        pytest.skip("chromium not installed")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, chromedriver = found
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    profile = tempfile.mkdtemp(prefix="templex-chromium-")
    for arg in [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        "--window-size=1400,900",
    ]:
        options.add_argument(arg)
    d = webdriver.Chrome(options=options, service=Service(executable_path=chromedriver))
    d.set_page_load_timeout(60)
    yield d
    d.quit()
    shutil.rmtree(profile, ignore_errors=True)


def wait_for(driver: Any, script: str, timeout: float = 60) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: d.execute_script(script))


def run_key_page(driver: Any, server: Server, url: str, method: str = "hybex") -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(server.base + "/")
    wait_for(driver, "return document.body.dataset.ready === '1'")
    Select(driver.find_element(By.ID, "method")).select_by_value(method)
    driver.find_element(By.ID, "page-filter").send_keys(url.rsplit("/", 1)[-1])
    Select(driver.find_element(By.ID, "page")).select_by_value(url)
    driver.find_element(By.ID, "run").click()
    state = wait_for(
        driver, "const s = document.body.dataset.state; return s === 'done' || s === 'error' ? s : null"
    )
    assert state == "done", driver.find_element(By.ID, "status").text
    wait_for(driver, "return document.body.dataset.view === '1'")


def frame_js(driver: Any, body: str) -> Any:
    return driver.execute_script(
        DOM_PATH_JS + "const doc = document.getElementById('view').contentDocument;\n" + body
    )


def test_overlay_marks_exactly_the_template_and_toggles_work(driver: Any, server: Server) -> None:
    run_key_page(driver, server, KEY)
    answer = server.post("/v1/template", {"url": KEY})
    expected = {
        p for p in answer["template_paths"] if not DROPPED & {s.split("[")[0] for s in p.split("/")[1:]}
    }
    marked = frame_js(
        driver,
        "return [...doc.querySelectorAll('[data-tx-t]')].map(domPath)"
        ".filter(p => p.startsWith('/html[1]/body[1]/'));",
    )
    assert len(marked) == len(set(marked))
    assert set(marked) == expected
    assert len(expected) > 10

    # The shading is drawn on template roots while the toggle is on, and only then.
    shade = (
        "const el = doc.querySelector('[data-tx-troot]');"
        "return doc.defaultView.getComputedStyle(el).boxShadow;"
    )
    assert frame_js(driver, shade) not in ("", "none")
    from selenium.webdriver.common.by import By

    driver.find_element(By.ID, "show-template").click()
    assert frame_js(driver, shade) == "none"
    assert not frame_js(driver, "return doc.documentElement.classList.contains('tx-show-template')")
    # Content outline toggles too.
    outline = (
        "const el = doc.querySelector('[data-tx-croot]');"
        "return doc.defaultView.getComputedStyle(el).outlineStyle;"
    )
    assert frame_js(driver, outline) == "solid"
    driver.find_element(By.ID, "show-content").click()
    assert frame_js(driver, outline) == "none"
    # Segments: outlined, with their score on hover (title), only when shown.
    seg = "return [...doc.querySelectorAll('[data-tx-seg]')].map(e => e.title);"
    assert all(t == "" for t in frame_js(driver, seg))
    driver.find_element(By.ID, "show-segments").click()
    titles = frame_js(driver, seg)
    assert titles and all(t.startswith("PAGELEVEL segment") for t in titles)

    # The panel: CS pages with links, pages loaded, content text, downloads.
    links = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "#cs-pages a")]
    assert links == answer["cs_pages"]
    assert driver.find_element(By.ID, "res-loaded").text == str(answer["pages_loaded"])
    assert driver.find_element(By.ID, "content-text").text.strip()
    for d in ["dl-annotated", "dl-template", "dl-json"]:
        assert driver.find_element(By.ID, d).get_attribute("href").startswith("blob:")
    # The README's picture (docs/viewer.png is this one): template and content shown, in a
    # 1280 x 800 view; the server has the example by a relative path (no folder of this machine).
    shot = REPO / "target" / "viewer.png"
    shot.parent.mkdir(exist_ok=True)
    driver.find_element(By.ID, "show-template").click()
    driver.find_element(By.ID, "show-content").click()
    driver.find_element(By.ID, "show-segments").click()
    metrics = {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    try:
        wait_for(driver, "return window.innerWidth === 1280 && window.innerHeight === 800")
        assert_fits(driver, "in the README's picture")
        driver.save_screenshot(str(shot))
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


# A mirror in a deep folder with long page URLs (issue 46): its site and page choosers are
# wider than a small window, and must not make the viewer wider than the window.
LONG_DIR = (
    "home/someone/a/rather/long/path/to/the/mirrors/www.riverbend-community-garden-and-allotments.example"
)
LONG_PREFIX = "https://www.riverbend-community-garden-and-allotments.example/"
LONG_SLUGS = [
    "2019/05/some-very-long-article-slug-with-many-words-about-compost-bays-and-what-goes-in-them",
    "2019/06/another-very-long-article-slug-about-the-spring-planting-day-and-the-new-greenhouse",
]

# Where the viewer overflows the window, if it does: the document's width, how far it is
# scrolled sideways, the page view's left edge and the rightmost edge of anything in the toolbar.
LAYOUT_JS = """
const rights = [...document.querySelectorAll('header *')]
  .map(e => e.getBoundingClientRect())
  .filter(r => r.width > 0 && r.height > 0)
  .map(r => r.right);
return {
  innerWidth: window.innerWidth,
  scrollWidth: document.documentElement.scrollWidth,
  bodyScrollWidth: document.body.scrollWidth,
  scrollX: window.scrollX,
  viewLeft: document.getElementById('view').getBoundingClientRect().left,
  panelRight: document.getElementById('panel').getBoundingClientRect().right,
  toolbarRight: Math.max(...rights),
};
"""


def assert_fits(driver: Any, after: str) -> None:
    m = driver.execute_script(LAYOUT_JS)
    width = m["innerWidth"]
    assert m["scrollWidth"] <= width and m["bodyScrollWidth"] <= width, f"wider than the window {after}: {m}"
    assert m["scrollX"] == 0, f"scrolled sideways {after}: {m}"
    assert m["viewLeft"] >= 0, f"the page view lost its left edge {after}: {m}"
    assert m["toolbarRight"] <= width, f"the toolbar overflows {after}: {m}"
    assert m["panelRight"] <= width, f"the panel overflows {after}: {m}"


def test_viewer_fits_a_1024_px_window_with_long_site_and_page_names(driver: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    site = tmp_path / LONG_DIR
    shutil.copytree(REPO / "examples" / "site", site)
    for slug, page in zip(LONG_SLUGS, ["garden/compost-guide.html", "news/spring-planting.html"]):
        (site / slug).mkdir(parents=True)
        shutil.copy(site / page, site / slug / "index.html")
    server = start_server(["--site", str(site), "--url-prefix", LONG_PREFIX])
    try:
        status, _, body = server.request("/v1/sites")
        assert status == 200
        (listed,) = json.loads(body)
        assert listed["path"] == str(site)
        key = max(listed["pages"], key=len)
        assert LONG_SLUGS[0] in key and len(key) > 120

        driver.set_window_size(1024, 800)
        driver.get(server.base + "/")
        wait_for(driver, "return document.body.dataset.ready === '1'")
        assert 1000 <= driver.execute_script("return window.innerWidth") <= 1024
        Select(driver.find_element(By.ID, "page")).select_by_value(key)
        assert_fits(driver, "on load")
        driver.find_element(By.ID, "run").click()
        state = wait_for(
            driver, "const s = document.body.dataset.state; return s === 'done' || s === 'error' ? s : null"
        )
        assert state == "done", driver.find_element(By.ID, "status").text
        wait_for(driver, "return document.body.dataset.view === '1'")
        assert_fits(driver, "after Show template")
        for toggle in ["show-template", "show-content", "show-segments"]:
            driver.find_element(By.ID, toggle).click()
            assert_fits(driver, f"after clicking {toggle}")
        driver.find_element(By.CSS_SELECTOR, '.tabs button[data-tab="markdown"]').click()
        assert_fits(driver, "after the Markdown tab")
        driver.find_element(By.CSS_SELECTOR, 'input[value="paste"]').click()
        assert_fits(driver, "after Paste HTML")
        driver.find_element(By.CSS_SELECTOR, 'input[value="site"]').click()
        driver.find_element(By.ID, "run").click()
        wait_for(driver, "return document.body.dataset.state === 'done'")
        assert_fits(driver, "after Show template again")
        # The full names stay reachable when the choosers cut them short.
        assert driver.find_element(By.ID, "site").get_attribute("title") == str(site)
        assert driver.find_element(By.ID, "page").get_attribute("title") == key
    finally:
        driver.set_window_size(1400, 900)
        assert stop_server(server) == 0


class _Hits(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
        _Hits.hits.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_nothing_of_the_shown_page_runs_or_reaches_its_origin(driver: Any, server: Server) -> None:
    origin = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hits)
    thread = threading.Thread(target=origin.serve_forever, daemon=True)
    thread.start()
    o = f"http://127.0.0.1:{origin.server_address[1]}"
    try:
        page = f"""<html><head><link rel=stylesheet href="{o}/css">
        <script>parent.document.body.dataset.pwned = 'script';</script>
        <meta http-equiv="refresh" content="0;url={o}/refresh"><base href="{o}/"></head>
        <body onload="parent.document.body.dataset.pwned='onload'">
        <nav><a href="{o}/a">A</a></nav>
        <img src="{o}/img.png" onerror="parent.document.body.dataset.pwned='onerror'">
        <iframe src="{o}/frame"></iframe><div style="background:url({o}/bg.png)">styled</div>
        <article><h1>Title</h1><p>A paragraph long enough to be the content of this page.</p></article>
        <form action="{o}/form"><input type=image src="{o}/input.png"></form>
        <video poster="{o}/poster.png"><source src="{o}/v.mp4"></video></body></html>"""
        from selenium.webdriver.common.by import By

        driver.get(server.base + "/")
        wait_for(driver, "return document.body.dataset.ready === '1'")
        driver.find_element(By.CSS_SELECTOR, 'input[value="paste"]').click()
        driver.execute_script("document.getElementById('html').value = arguments[0];", page)
        driver.find_element(By.ID, "run").click()
        wait_for(driver, "return document.body.dataset.state === 'done'")
        wait_for(driver, "return document.body.dataset.view === '1'")
        # Give anything that could fire a moment to do so.
        driver.execute_script("return new Promise(r => setTimeout(r, 1500));")
        assert driver.execute_script("return document.body.dataset.pwned || null") is None
        assert frame_js(driver, "return doc.querySelectorAll('script, iframe, link, base').length") == 0
        assert "Title" in frame_js(driver, "return doc.body.innerText")
        sandbox = driver.find_element(By.ID, "view").get_attribute("sandbox")
        assert "allow-scripts" not in sandbox
        assert _Hits.hits == [], f"the shown page reached its origin: {_Hits.hits}"
    finally:
        origin.shutdown()


def test_screenshot_kept_for_the_readme() -> None:
    """The README shows target/viewer.png (the overlay test's) copied to docs/viewer.png."""
    assert (Path(REPO) / "docs" / "viewer.png").is_file()
