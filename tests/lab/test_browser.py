"""The lab page in a real browser: Debian's chromium + chromedriver driven by Selenium.

Skipped with a reason when selenium, /usr/bin/chromium or chromedriver is missing
(``.ci/run`` installs them from Debian when it can; nothing is ever downloaded).
Screenshots of each page are saved under a temporary directory whose path is printed
(``pytest -s`` shows it; also in the test's captured output on failure).
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import shutil
import tempfile

import numpy as np
import pytest

import lagdyn as ld

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
try:
    import selenium  # noqa: F401

    HAVE_SELENIUM = True
except ImportError:  # pragma: no cover - depends on the environment
    HAVE_SELENIUM = False

pytestmark = pytest.mark.skipif(
    not (HAVE_SELENIUM and CHROMIUM and DRIVER),
    reason="needs selenium (pip install selenium) and Debian's chromium + chromium-driver "
    "(apt-get install chromium chromium-driver); no browser is downloaded",
)


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    out = tmp_path_factory.mktemp("lab-pages")
    return {
        "double_pendulum": ld.lab.write(out / "double_pendulum.html", ld.zoo.double_pendulum()),
        "cart_pole": ld.lab.write(out / "cart_pole.html", ld.zoo.cart_pole()),
        "n_link_pendulum4": ld.lab.write(
            out / "n_link_pendulum4.html", ld.zoo.n_link_pendulum(4), label="n_link_pendulum"
        ),
    }


@pytest.fixture(scope="module")
def screenshots():
    path = tempfile.mkdtemp(prefix="lagdyn-lab-screens-")
    print(f"\nlab screenshots: {path}")
    return path


@pytest.fixture(scope="module")
def driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="lagdyn-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--no-default-browser-check",
        f"--user-data-dir={profile}",
        "--window-size=1400,1800",
    ):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    os.environ.setdefault("SE_AVOID_STATS", "true")
    drv = webdriver.Chrome(service=Service(DRIVER), options=opts)
    drv.set_script_timeout(60)
    yield drv
    drv.quit()
    shutil.rmtree(profile, ignore_errors=True)


def load(driver, path, fragment=""):
    driver.get("about:blank")
    driver.get(path.as_uri() + fragment)
    driver.get_log("performance")  # drain; requests are checked in their own test
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


def cell(driver, key, col):
    """(text, value) of a table cell."""
    return driver.execute_script(
        "const c = document.getElementById(arguments[0]); return [c.textContent, c.dataset.value];",
        f"c-{key}-{col}",
    )


def text(driver, key, col):
    return cell(driver, key, col)[0]


def value(driver, key, col):
    return float(cell(driver, key, col)[1])


SEED_TABLE = {
    "angle1": ("0", "0"),
    "angle2": ("0", "0"),
    "rate1": ("1", "1"),
    "rate2": ("-1", "-2"),
    "metric11": ("2", "5"),
    "metric12": ("1", "2"),
    "metric22": ("1", "1"),
    "eig1": ("0.382", "0.1716"),
    "eig2": ("2.618", "5.828"),
    "K": ("0.5", "0.5"),
    "Kpoints": ("0.5", ""),
    "Kdiag": ("1.5", "4.5"),
    "Kcoupling": ("-1", "-4"),
    "Q1": ("3", "6"),
    "Q2": ("3", "3"),
    "power": ("0", "0"),
    "vwork": ("0", "0"),
    "h1": ("0.25", "0"),
    "h2": ("0.25", "0"),
    "perr": ("0.2745", ""),
    "fwork": ("-3.673", "0"),
}


def test_seed_table_on_first_screen(driver, pages, screenshots):
    load(driver, pages["double_pendulum"])
    got = {k: (text(driver, k, 0), text(driver, k, 1)) for k in SEED_TABLE}
    assert got == SEED_TABLE
    # the panels' captions carry the same numbers
    assert "v1 = (1, 0) m/s · v2 = (0, 0) m/s" in driver.find_element("id", "cap-velocities").text
    assert "finite work = -3.673 J" in driver.find_element("id", "cap-work").text
    assert value(driver, "perr", 0) == pytest.approx(
        math.sqrt(
            (0.5 - math.sin(0.5)) ** 2 + (1 - math.cos(0.5)) ** 2 + (2 - 2 * math.cos(0.5)) ** 2
        ),
        abs=1e-14,
    )
    driver.save_screenshot(os.path.join(screenshots, "double_pendulum.png"))


def test_half_pi_state(driver, pages):
    load(driver, pages["double_pendulum"])
    driver.execute_script("lagdynLab.set({a: 0, b: Math.PI / 2, v_a: 1, v_b: 1})")
    assert [value(driver, k, 0) for k in ("metric11", "metric12", "metric22")] == pytest.approx(
        [2, 0, 1], abs=1e-15
    )
    assert [text(driver, k, 0) for k in ("metric11", "metric12", "metric22")] == ["2", "0", "1"]
    assert [text(driver, k, 1) for k in ("metric11", "metric12", "metric22")] == ["3", "1", "1"]
    assert [value(driver, k, 0) for k in ("eig1", "eig2")] == pytest.approx([1, 2], abs=1e-14)
    assert [value(driver, k, 1) for k in ("eig1", "eig2")] == pytest.approx(
        [2 - math.sqrt(2), 2 + math.sqrt(2)], abs=1e-14
    )
    assert [text(driver, "rate1", 1), text(driver, "rate2", 1)] == ["1", "0"]
    assert value(driver, "K", 0) == pytest.approx(1.5, abs=1e-14)
    assert value(driver, "K", 1) == pytest.approx(1.5, abs=1e-14)


def python_table(state):
    """M, eigenvalues, K, Q and power at a page state, from the Python NumericModels."""
    dp = ld.zoo.double_pendulum()
    rel = ld.zoo.double_pendulum(coordinates="relative")
    num, numr = dp.lambdify(dp.defaults), rel.lambdify(rel.defaults)
    q, qd, F = np.array(state["q"]), np.array(state["qd"]), np.array(state["F"])
    u = np.array([q[0], q[1] - q[0]])
    ud = np.array([qd[0], qd[1] - qd[0]])
    M, Mr = num.M(q), numr.M(u)
    J_end = np.array([[math.cos(q[0]), math.cos(q[1])], [math.sin(q[0]), math.sin(q[1])]])
    Q = -num.g(q) + J_end.T @ F
    A = np.array([[1.0, 0.0], [1.0, 1.0]])
    return {
        "M": M,
        "Mr": Mr,
        "eig": np.linalg.eigvalsh(M),
        "eigr": np.linalg.eigvalsh(Mr),
        "K": 0.5 * qd @ M @ qd,
        "Kr": 0.5 * ud @ Mr @ ud,
        "Q": Q,
        "Qr": A.T @ Q,
        "power": Q @ qd,
    }


def test_slider_updates_table_and_url(driver, pages):
    from selenium.webdriver.common.keys import Keys

    load(driver, pages["double_pendulum"])
    slider = driver.find_element("id", "in-b")
    slider.click()
    for _ in range(7):
        slider.send_keys(Keys.ARROW_RIGHT)
    state = driver.execute_script("return lagdynLab.state()")
    assert state["q"][1] != 0.0  # the slider moved
    ref = python_table(state)
    got_M = [
        [value(driver, "metric11", 0), value(driver, "metric12", 0)],
        [value(driver, "metric12", 0), value(driver, "metric22", 0)],
    ]
    got_Mr = [
        [value(driver, "metric11", 1), value(driver, "metric12", 1)],
        [value(driver, "metric12", 1), value(driver, "metric22", 1)],
    ]
    np.testing.assert_allclose(got_M, ref["M"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got_Mr, ref["Mr"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        [value(driver, "eig1", 0), value(driver, "eig2", 0)], ref["eig"], rtol=1e-12
    )
    np.testing.assert_allclose(
        [value(driver, "eig1", 1), value(driver, "eig2", 1)], ref["eigr"], rtol=1e-12
    )
    np.testing.assert_allclose(
        [value(driver, "K", 0), value(driver, "K", 1)], [ref["K"], ref["Kr"]], rtol=1e-12
    )
    np.testing.assert_allclose(
        [value(driver, "Q1", 0), value(driver, "Q2", 0)], ref["Q"], rtol=1e-12, atol=1e-12
    )
    np.testing.assert_allclose(
        [value(driver, "Q1", 1), value(driver, "Q2", 1)], ref["Qr"], rtol=1e-12, atol=1e-12
    )
    np.testing.assert_allclose(
        [value(driver, "power", 0), value(driver, "power", 1)], [ref["power"]] * 2, atol=1e-12
    )
    # the state is in the fragment; a page opened on that link shows the same table
    url = driver.current_url
    assert f"b={state['q'][1]!r}&" in url  # shortest round-trip repr, as Python prints it
    before = {k: text(driver, k, c) for k in SEED_TABLE for c in (0, 1)}
    driver.get("about:blank")
    driver.get(url)
    after = {k: text(driver, k, c) for k in SEED_TABLE for c in (0, 1)}
    assert after == before


def test_fragment_state_and_korean(driver, pages):
    load(driver, pages["double_pendulum"], "#a=0&b=1.5707963267948966&v_a=1&v_b=1&lang=ko")
    assert driver.execute_script("return document.documentElement.lang") == "ko"
    assert driver.find_element("id", "r-K").text.startswith("운동에너지")
    assert [text(driver, k, 0) for k in ("metric11", "metric12", "metric22")] == ["2", "0", "1"]
    assert [text(driver, k, 1) for k in ("metric11", "metric12", "metric22")] == ["3", "1", "1"]
    assert text(driver, "K", 0) == "1.5" and text(driver, "K", 1) == "1.5"
    driver.find_element("id", "btn-lang").click()
    assert driver.find_element("id", "r-K").text.startswith("kinetic energy")
    assert "lang=en" in driver.current_url


def test_swing_matches_simulate(driver, pages):
    load(driver, pages["double_pendulum"])
    driver.execute_script("lagdynLab.advance(2.0)")
    state = driver.execute_script("return lagdynLab.state()")
    assert state["t"] == pytest.approx(2.0, abs=1e-12)
    dp = ld.zoo.double_pendulum()
    res = ld.simulate(dp, [0.0, 0.0, 1.0, -1.0], 2.0, dt=1e-3, method="rk4")
    np.testing.assert_allclose(state["q"], res.q[-1], atol=1e-6)
    np.testing.assert_allclose(state["qd"], res.qd[-1], atol=1e-6)
    drift = float(driver.find_element("id", "swing-readout").get_attribute("data-drift"))
    assert abs(drift) < 1e-6  # RK4 at dt = 1 ms conserves E to far better than this
    assert drift == pytest.approx(res.energy[-1] - res.energy[0], abs=1e-9)


def test_cart_pole_page_and_swing(driver, pages, screenshots):
    load(driver, pages["cart_pole"])
    cp = ld.zoo.cart_pole()
    num = cp.lambdify(cp.defaults)
    state = driver.execute_script("return lagdynLab.state()")
    got_M = [
        [value(driver, "metric11", 0), value(driver, "metric12", 0)],
        [value(driver, "metric12", 0), value(driver, "metric22", 0)],
    ]
    np.testing.assert_allclose(got_M, num.M(state["q"]), rtol=1e-12)
    assert (
        text(driver, "h1", 1) == "0" and text(driver, "h2", 1) == "0"
    )  # exact map stays on the rail and the pole length
    driver.save_screenshot(os.path.join(screenshots, "cart_pole.png"))
    driver.execute_script("lagdynLab.advance(1.0)")
    after = driver.execute_script("return lagdynLab.state()")
    res = ld.simulate(cp, [*state["q"], *state["qd"]], 1.0, dt=1e-3, method="rk4")
    np.testing.assert_allclose(after["q"], res.q[-1], atol=1e-6)


OTHER_MODELS = {
    "double_pendulum_relative": lambda: ld.zoo.double_pendulum(coordinates="relative"),
    "n_link_pendulum": lambda: ld.zoo.n_link_pendulum(3),
    "acrobot": lambda: ld.zoo.acrobot(),
    "two_link_planar": lambda: ld.zoo.two_link_planar(),
}


@pytest.mark.parametrize("name", list(OTHER_MODELS))
def test_other_planar_models(driver, name, tmp_path, screenshots):
    """Every planar zoo model: loads without error, M matches Python, the swing stays finite."""
    system = OTHER_MODELS[name]()
    path = ld.lab.write(tmp_path / f"{name}.html", system, label=name)
    load(driver, path)
    state = driver.execute_script("return lagdynLab.state()")
    n = system.n
    got = np.array(
        [
            [value(driver, f"metric{min(i, j) + 1}{max(i, j) + 1}", 0) for j in range(n)]
            for i in range(n)
        ]
    )
    np.testing.assert_allclose(
        got, system.lambdify(system.defaults).M(state["q"]), rtol=1e-12, atol=1e-12
    )
    driver.execute_script("lagdynLab.advance(0.2)")
    after = driver.execute_script("return lagdynLab.state()")
    assert np.all(np.isfinite(after["q"])) and after["q"] != state["q"]
    driver.save_screenshot(os.path.join(screenshots, f"{name}.png"))


def test_no_network_requests(driver, pages):
    """Every request the browser makes for the pages is the file itself (performance log)."""
    driver.get_log("performance")
    for path in pages.values():
        driver.get(path.as_uri())
        driver.execute_script("lagdynLab.advance(0.1)")
    urls = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.requestWillBeSent":
            urls.append(msg["params"]["request"]["url"])
    assert urls, "the performance log recorded no request at all"
    assert all(u.startswith("file://") for u in urls), urls


# ----------------------------------------------------------------- issue 21, item 10

RATE_LABEL = """
const lab = document.querySelector(`label[for="in-${arguments[0]}"]`);
const dot = lab && lab.querySelector(".dotted > .dot");
if (!dot) return { text: lab && lab.textContent };
const sub = lab.querySelector("sub");
return { base: dot.previousElementSibling.textContent, sub: sub ? sub.textContent : null };
"""


def ink_runs(png: bytes) -> list[tuple[int, int, int]]:
    """(first row, last row, ink width) of each vertical run of rows holding dark pixels."""
    from PIL import Image

    img = np.asarray(Image.open(io.BytesIO(png)).convert("L")) < 128
    rows = np.flatnonzero(img.any(axis=1))
    runs, start = [], rows[0]
    for a, b in zip(rows, [*rows[1:], None]):
        if b is None or b > a + 1:
            cols = np.flatnonzero(img[start : a + 1].any(axis=0))
            runs.append((int(start), int(a), int(cols[-1] - cols[0] + 1)))
            start = b
    return runs


@pytest.mark.parametrize(
    "name, key, base, sub",
    [("double_pendulum", "v_b", "b", None), ("n_link_pendulum4", "v_theta1", "θ", "1")],
)
def test_rate_labels_carry_a_dot_over_the_whole_symbol(
    driver, pages, screenshots, name, key, base, sub
):
    """The rendered rate label is its symbol with a visible dot above it, apart from the
    letter (no font's combining dot: "ḃ" showed as "b" in Chromium)."""
    pytest.importorskip("PIL")
    load(driver, pages[name])
    got = driver.execute_script(RATE_LABEL, key)
    assert got is not None and "base" in got, got
    assert (got["base"], got["sub"]) == (base, sub)
    label = driver.find_element("css selector", f'label[for="in-{key}"]')
    png = label.screenshot_as_png
    with open(os.path.join(screenshots, f"{name}-{key}.png"), "wb") as fh:
        fh.write(png)
    runs = ink_runs(png)
    # the top run of ink is the dot: small, and a blank row apart from the letter below
    (top, bottom, width), (below, _, letter) = runs[0], runs[1]
    assert 2 <= bottom - top + 1 <= 5 and 2 <= width <= 5, runs
    assert below > bottom + 1 and letter > width, runs
    # Greek names are letters everywhere on the page
    shown = driver.find_element("tag name", "body").text + driver.title
    assert "theta" not in shown


def test_rejected_input_is_marked_and_explained(driver, pages):
    """m2 = −1, letters or trailing junk: the field is marked invalid with a message next to
    it and the page keeps (and says) the value it computes with; a valid value clears it."""
    from selenium.webdriver.common.keys import Keys

    load(driver, pages["double_pendulum"])
    m2 = driver.find_element("id", "in-m2-num")
    msg = driver.find_element("id", "in-m2-msg")

    def type_into(box, s):
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(s)
        box.send_keys(Keys.TAB)

    type_into(m2, "-1")
    assert m2.get_attribute("value") == "-1"
    assert m2.get_attribute("aria-invalid") == "true"
    assert msg.is_displayed() and "m₂" in msg.text and "positive" in msg.text
    assert "-1" in msg.text and "1" in msg.text
    assert driver.execute_script(
        "return arguments[0].parentElement === arguments[1].parentElement", m2, msg
    )
    state = driver.execute_script("return lagdynLab.state()")
    assert state["p"][4] == 1.0 and text(driver, "metric11", 0) == "2"  # m1 + m2, m2 kept

    l1 = driver.find_element("id", "in-l1-num")
    for bad in ("abc", "2x"):  # typed live: "2" is taken on its way to "2x", and said so
        type_into(l1, bad)
        assert l1.get_attribute("aria-invalid") == "true", bad
        l1_msg = driver.find_element("id", "in-l1-msg").text
        used = driver.execute_script("return lagdynLab.state()")["p"][1]
        assert "not a number" in l1_msg and bad in l1_msg and f"l₁ = {used:g}" in l1_msg
        assert used == {"abc": 1.0, "2x": 2.0}[bad]
    # the messages follow the language
    driver.find_element("id", "btn-lang").click()
    assert "positive" not in msg.text and "m₂" in msg.text
    driver.find_element("id", "btn-lang").click()

    type_into(m2, "3")
    assert m2.get_attribute("aria-invalid") != "true" and not msg.is_displayed()
    assert text(driver, "metric11", 0) == "16"  # (m1 + m2) l1² with m2 = 3, l1 = 2
    assert driver.find_element("id", "in-l1-num").get_attribute("aria-invalid") == "true"
    # a rejected value in the URL fragment is reported the same way
    load(driver, pages["double_pendulum"], "#m2=-2")
    assert driver.find_element("id", "in-m2-num").get_attribute("aria-invalid") == "true"
    assert "-2" in driver.find_element("id", "in-m2-msg").text
    assert driver.execute_script("return lagdynLab.state()")["p"][4] == 1.0


ENUMERATE_TEXT = """
const out = [document.title];
const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walk.nextNode()) {
  const node = walk.currentNode;
  if (node.parentElement.closest("script, style")) continue;
  if (node.textContent.trim()) out.push(node.textContent);
}
for (const e of document.querySelectorAll("[title], [aria-label], [placeholder], [alt]"))
  for (const a of ["title", "aria-label", "placeholder", "alt"]) if (e.getAttribute(a)) out.push(e.getAttribute(a));
return out.concat(window.__canvasText);
"""

RECORD_CANVAS = """
window.__canvasText = [];
const fill = CanvasRenderingContext2D.prototype.fillText;
CanvasRenderingContext2D.prototype.fillText = function (s, ...rest) {
  window.__canvasText.push(String(s));
  return fill.call(this, s, ...rest);
};
lagdynLab.set({});
const box = document.getElementById("in-eps-num");
box.value = "oops";
box.dispatchEvent(new Event("input"));
"""


@pytest.mark.parametrize("name", ["double_pendulum", "cart_pole"])
def test_korean_mode_translates_every_string(driver, pages, name):
    """In Korean mode, every text node, attribute text and canvas label of the page
    (including a rejection message) holds no English word beyond symbols, units and names."""
    load(driver, pages[name], "#lang=ko")
    driver.execute_script(RECORD_CANVAS)
    texts = driver.execute_script(ENUMERATE_TEXT)
    assert any("운동에너지" in t for t in texts)
    cfg = driver.execute_script("return LAB_CONFIG")
    # symbols, units, the language button, and "oops", the rejected text typed above
    allowed = {"lagdyn", "English", "RK", "dt", "rad", "kg", "MA", "Fx", "Fy", "oops"}
    for nm in [*cfg["coordinates"], *cfg["parameters"], name]:
        allowed |= set(re.findall(r"[A-Za-z]{2,}", nm))
    english = sorted({w for t in texts for w in re.findall(r"[A-Za-z]{2,}", t)} - allowed)
    assert not english, [t for t in texts if set(re.findall(r"[A-Za-z]{2,}", t)) & set(english)]


def test_layout_uses_the_window_width(driver, pages, screenshots):
    """At a 1600-px window the panels fill the row, the table spans the section and the
    canvases draw at their displayed width (no fixed narrow column)."""
    driver.set_window_size(1600, 1200)
    try:
        load(driver, pages["double_pendulum"])
        got = driver.execute_script(
            """
            const sec = document.querySelector("main > section").getBoundingClientRect();
            const panels = [...document.querySelectorAll(".panel")].map((p) => p.getBoundingClientRect());
            return {
              inner: document.documentElement.clientWidth,
              sec: [sec.left, sec.right],
              right: Math.max(...panels.map((r) => r.right)),
              table: document.getElementById("lab-table").getBoundingClientRect().width,
              canvases: [...document.querySelectorAll("canvas")].map((c) => [c.width, c.getBoundingClientRect().width]),
            };
            """
        )
        driver.save_screenshot(os.path.join(screenshots, "double_pendulum-1600.png"))
    finally:
        driver.set_window_size(1400, 1800)
    left, right = got["sec"]
    assert got["inner"] >= 1550 and right >= got["inner"] - 24
    assert got["right"] >= right - 12, got  # the panels reach the section's right edge
    assert got["table"] >= 0.95 * (right - left), got
    for drawn, shown in got["canvases"]:
        assert shown > 362 and abs(drawn - shown) <= 1, got["canvases"]


def test_a_hostile_title_and_label_show_as_written(driver, tmp_path):
    """The title and model label are text, whatever they hold (issue 22: lab titles)."""
    title = (
        "</title><script>alert(1)</script> \"double\" 'single' & </script> <!-- "
        "@LAB_JS@ @MODEL@ @CONFIG@ — 한국어 θ₁ " + "x" * 3000
    )
    label = "pendulum </h1><b> @LAB_JS@ & 'q'"
    path = ld.lab.write(
        tmp_path / "hostile.html", ld.zoo.double_pendulum(), title=title, label=label
    )
    load(driver, path)  # no script error
    shown = driver.execute_script(
        "return [document.title, document.querySelector('h1').textContent,"
        " document.querySelectorAll('script').length, document.querySelectorAll('b').length]"
    )
    assert shown[0] == title
    assert shown[1].endswith(f"— {label}")
    assert shown[2:] == [3, 0]  # the page's own three scripts; no element from the text
