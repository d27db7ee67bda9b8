"""The lab page in a real browser: Debian's chromium + chromedriver driven by Selenium.

Skipped with a reason when selenium, /usr/bin/chromium or chromedriver is missing
(``.ci/run`` installs them from Debian when it can; nothing is ever downloaded).
Screenshots of each page are saved under a temporary directory whose path is printed
(``pytest -s`` shows it; also in the test's captured output on failure).
"""

from __future__ import annotations

import json
import math
import os
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
