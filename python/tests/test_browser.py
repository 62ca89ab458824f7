"""The study in a real browser, as a user meets it: Debian's Chromium driven by its chromedriver.

- JupyterLab (the project environment, with its settings) lists the chapters; a double-click on
  one opens it as a notebook, not as a text file; running it under the ci profile shows its first
  table (the cells come from the store `make test-notebooks` filled, or run).
- The rendered article draws every figure and logs no script error, keeps sentences in tables
  wrapped, prints no path of the machine that built it, answers on its first screen and
  reads without long sentences or internal names.

`make test-browser` runs these after rendering the ci article (ALLOC_OR_POOL_ARTICLE).
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from allocorpool import paths

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
CHAPTER = "02-batch.py"
RUN_TIMEOUT_S = 900

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ready  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if not (CHROMIUM.is_file() and CHROMEDRIVER.is_file()):
        pytest.fail("Debian's chromium and chromium-driver are not installed (.ci/run installs them)")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    # The closed network refuses Chromium's background connections: turn them off.
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-quic", "--window-size=1400,1000",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=str(CHROMEDRIVER)), options=options)
    yield driver
    driver.quit()


@pytest.fixture
def article() -> Path:
    """The ci article make test-browser renders (ALLOC_OR_POOL_ARTICLE), or build/article.html."""
    page = Path(os.environ.get("ALLOC_OR_POOL_ARTICLE") or paths.project_root() / "build" / "article.html")
    if not page.is_file():
        pytest.fail(f"{page} is missing: render it first (make test-browser does)")
    return page


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on the checkout, with its token, under the ci profile and the tests' data folder."""
    port, token = _free_port(), secrets.token_hex(16)
    data = os.environ.get("ALLOC_OR_POOL_DATA") or str(tmp_path_factory.mktemp("data"))
    env = {**os.environ, "ALLOC_OR_POOL_PROFILE": "ci", "ALLOC_OR_POOL_DATA": data}
    jupyter = Path(sys.executable).with_name("jupyter")
    command = [str(jupyter), "lab", "--no-browser", f"--port={port}", f"--IdentityProvider.token={token}",
               f"--ServerApp.root_dir={paths.project_root()}", "--LabApp.expose_app_in_browser=True",
               # a workspace of its own: the user's would reopen where they left (inside notebooks/, a tab open)
               f"--LabApp.workspaces_dir={tmp_path_factory.mktemp('workspaces')}"]
    if os.geteuid() == 0:
        command.append("--allow-root")
    log = tmp_path_factory.mktemp("lab") / "jupyterlab.log"
    with open(log, "wb") as output:
        server = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, env=env,
                                  start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2):
                break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                pytest.fail(f"JupyterLab did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)
    yield url, token
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()


def _double_click(driver, name: str) -> None:
    """Double-clicks a file browser entry, as a user does."""
    item = WebDriverWait(driver, 60).until(ready.element_to_be_clickable(
        (By.XPATH, f"//li[contains(@class, 'jp-DirListing-item')][.//span[text()='{name}']]")))
    ActionChains(driver).double_click(item).perform()


def test_a_chapter_opens_as_a_notebook_and_runs_to_its_first_table(browser, lab):
    url, token = lab
    browser.get(f"{url}/lab?token={token}")
    _double_click(browser, "notebooks")
    _double_click(browser, CHAPTER)
    panel = WebDriverWait(browser, 60).until(ready.presence_of_element_located(
        (By.CSS_SELECTOR, ".jp-NotebookPanel")))
    assert not browser.find_elements(By.CSS_SELECTOR, ".jp-FileEditor"), f"{CHAPTER} opened as a text file"
    WebDriverWait(browser, 120).until(lambda d: d.execute_script(
        "const w = window.jupyterapp.shell.currentWidget;"
        "return !!(w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel"
        " && w.sessionContext.session.kernel.connectionStatus === 'connected');"))
    browser.execute_script("window.jupyterapp.commands.execute('notebook:run-all-cells');")
    table = WebDriverWait(browser, RUN_TIMEOUT_S).until(lambda d: panel.find_elements(
        By.CSS_SELECTOR, ".jp-OutputArea-output table") or (panel.find_elements(
            By.CSS_SELECTOR, ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr'] .ansi-red-fg")
            and pytest.fail("a cell of the chapter raised")))
    assert "ns" in table[0].text or "case" in table[0].text.lower()


def test_the_article_draws_every_figure_without_a_script_error(browser, article):
    text = article.read_text(encoding="utf-8")
    for private in {str(paths.project_root()), str(Path.home())} - {"/"}:
        assert private not in text, f"the article prints a path of the machine that built it: {private}"
    browser.get_log("browser")  # what came before this page
    browser.get(article.as_uri())
    figures = WebDriverWait(browser, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".plotly-graph-div"))
    WebDriverWait(browser, 60).until(lambda d: all(f.find_elements(By.CSS_SELECTOR, ".main-svg") for f in figures))
    assert len(figures) >= 5
    wide = browser.execute_script(
        "return Array.from(document.querySelectorAll('td, th')).filter(c => c.getBoundingClientRect().width > 500"
        " && getComputedStyle(c).whiteSpace === 'nowrap').map(c => c.textContent.trim().slice(0, 60));")
    assert not wide, f"{len(wide)} table cells run on one line wider than a reading column: {wide[:5]}"
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, f"the article logged script errors: {errors}"



def test_the_first_screen_answers_with_the_citation_and_the_answer_table(browser, article):
    browser.set_window_size(1400, 900)
    browser.get(article.as_uri())
    WebDriverWait(browser, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "table"))
    screen = browser.execute_script(
        "const first = document.querySelector('a[href=\"#chapter-1\"]');"
        "const range = document.createRange(); range.setStart(document.body, 0); range.setEndBefore(first);"
        "return range.toString();")
    assert "To allocate or to pool?" in screen and "2019" in screen and "Zemtsov" in screen
    assert "The 2019 conclusions today" in screen and "The best strategy of each solution and case in batch" in screen
    for raw in ("ns_per_packet", "_batch_", "True", "False", "nan"):
        assert raw not in screen.split(), f"the first screen shows {raw!r}"
    link = browser.find_element(By.CSS_SELECTOR, 'a[href="https://pzemtsov.github.io/2019/01/17/allocate-or-pool.html"]')
    assert link.text == '"To allocate or to pool?"' or "allocate or to pool" in link.text
    # the forest plot of pooling against allocation is drawn within the first 900 px, a row per solution and case
    # in each of its two panels (batch, real time), each row's interval drawn
    WebDriverWait(browser, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".plotly-graph-div .main-svg"))
    forest = browser.execute_script(
        "const first = document.querySelector('a[href=\"#chapter-1\"]').getBoundingClientRect().top;"
        "const figs = Array.from(document.querySelectorAll('.plotly-graph-div'))"
        ".filter(f => f.getBoundingClientRect().top < first);"
        "if (!figs.length) return null; const f = figs[0];"
        "return {top: f.getBoundingClientRect().top + window.scrollY, bottom: f.getBoundingClientRect().bottom,"
        " rows: Array.from(f.querySelectorAll('.yaxislayer-above .ytick text')).map(t => t.textContent),"
        " titles: Array.from(f.querySelectorAll('.annotation-text, .gtitle')).map(t => t.textContent),"
        " lines: f.querySelectorAll('.scatterlayer .trace').length,"
        " ticks: Array.from(f.querySelectorAll('.xaxislayer-above .xtick text'))"
        ".map(t => t.getBoundingClientRect().top + window.scrollY),"
        " key: f.querySelector('.legend') && f.querySelector('.legend').getBoundingClientRect().bottom"
        " + window.scrollY};")
    assert forest is not None, "no figure before the first chapter: the forest plot is missing"
    assert forest["top"] < 900, f"the forest plot starts at {forest['top']:.0f} px, below the first screen"
    assert len(forest["rows"]) >= 2 and forest["lines"] >= 2, f"the forest plot draws no rows: {forest}"
    # its scale and its key are read on the first screen too, not below the fold after its last row
    assert forest["ticks"] and max(forest["ticks"]) < 900, \
        f"the forest plot's scale is below the first screen: {forest['ticks']}"
    assert forest["key"] is not None and forest["key"] < 900, f"the forest plot's key ends at {forest['key']} px"
    assert any("batch" in t.lower() for t in forest["titles"]) and any("real time" in t.lower()
                                                                      for t in forest["titles"]), forest["titles"]
    sentences = screen.split("Each dot is")[0]
    assert "pooling" in sentences.lower() and "%" in sentences, "no answer sentence with its margin before the plot"


def test_the_article_reads_without_long_sentences_internal_names_or_raw_values(browser, article):
    """No sentence over 50 words, no cell key, column, file or API name, no True/False/nan in a table, no
    progress line and no unexplained word, in the page as Chromium lays it out (readability's rules)."""
    from allocorpool.chapters.page import readability

    browser.get(article.as_uri())
    WebDriverWait(browser, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "table"))
    page = browser.execute_script("return document.documentElement.outerHTML;")
    found = readability.findings(page)
    assert not found, f"{len(found)} findings:\n" + "\n".join(map(str, found[:40]))


SCREENS = 30  # the article, every fold closed, read at 1,400 x 900 px
WORDS_IN_A_CELL = 15


def test_the_article_folds_to_thirty_screens_and_no_table_scrolls_sideways(browser, article):
    """Every fold closed, the page is at most SCREENS screens of 900 px; no table shown is wider than the
    column it sits in; the answer's tables read in at most WORDS_IN_A_CELL words a cell; a chapter's box
    unfolds the chapter in place."""
    browser.set_window_size(1400, 900)
    browser.get(article.as_uri())
    WebDriverWait(browser, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "table"))
    height = browser.execute_script("return document.documentElement.scrollHeight;")
    assert height <= SCREENS * 900, f"the folded article is {height / 900:.1f} screens"
    boxes = browser.find_elements(By.CSS_SELECTOR, "label.unfold input")
    assert boxes, "no chapter folds"
    assert browser.execute_script("return getComputedStyle(document.querySelector('.celltag_folded')).display;") == "none"
    browser.execute_script("document.querySelectorAll('label.unfold input').forEach(b => b.click());"
                           "document.querySelectorAll('details').forEach(d => d.open = true);")
    assert browser.execute_script("return Array.from(document.querySelectorAll('.celltag_folded'))"
                                  ".every(c => getComputedStyle(c).display === 'block');"), "a box did not unfold"
    wide = browser.execute_script(
        "return Array.from(document.querySelectorAll('table')).filter(t => t.getClientRects().length"
        " && t.getBoundingClientRect().width > t.parentElement.clientWidth + 2)"
        ".map(t => [Math.round(t.getBoundingClientRect().width),"
        " (t.caption ? t.caption.textContent : t.textContent).trim().slice(0, 60)]);")
    assert not wide, f"{len(wide)} tables scroll sideways at 1,400 px, everything unfolded: {wide}"
    long = browser.execute_script(
        "return Array.from(document.querySelectorAll('table')).filter(t => t.caption &&"
        " t.caption.textContent.startsWith('The best strategy of each'))"
        ".flatMap(t => Array.from(t.querySelectorAll('td'))).map(c => c.textContent.trim())"
        f".filter(text => text.split(/\\s+/).length > {WORDS_IN_A_CELL});")
    assert not long, f"answer cells over {WORDS_IN_A_CELL} words: {long[:3]}"
