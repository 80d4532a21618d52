"""Drives a running `hotels dashboard --access-log` in headless Chromium (Debian's, through
chromium-driver), page by page, and prints what it saw as one JSON object.

usage: dashboard_fleet.py CONFIG.json

CONFIG holds: base (the dashboard's URL), list (a list page's path), accessLog (the
file the dashboard's stderr goes to), screenshot (where to save the list page),
deadJob (a dead job's id), enqueue (a command that queues one more list job),
hostileName, and hostileFields (a hostile phone, city and chain, set on the list's
2nd and 151st rows).

Every wait is for a condition in the page or in the server's log (WebDriverWait),
never a fixed time.
"""
import json
import subprocess
import sys
from urllib.parse import unquote

from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import chromium

with open(sys.argv[1]) as file:
    CONFIG = json.load(file)
BASE = CONFIG["base"]
WAIT = 120

driver = chromium.start(console=True)
result = {"consoleErrors": [], "pages": []}


def wait(condition, what):
    WebDriverWait(driver, WAIT).until(lambda _: condition(), message=what)


def script(source, *arguments):
    return driver.execute_script(source, *arguments)


def visit(path):
    """Opens a page and keeps what its console said at error level."""
    driver.get(BASE + path)
    wait(lambda: script("return document.readyState") == "complete", path + " loaded")
    wait(lambda: script("return !!window.hotelkitWindow"), path + "'s script ran")
    result["pages"].append(path)
    collect_console(path)


def collect_console(path):
    for entry in driver.get_log("browser"):
        if entry["level"] == "SEVERE":
            result["consoleErrors"].append({"page": path, "message": entry["message"]})


def access_log():
    """The dashboard's access lines so far: (path, status, logo URL or None)."""
    lines = []
    with open(CONFIG["accessLog"]) as file:
        for line in file:
            parts = line.split()
            # hotels: dashboard: GET /logo 200 URL
            if len(parts) >= 5 and parts[1] == "dashboard:":
                lines.append((parts[3], int(parts[4]), parts[5] if len(parts) > 5 else None))
    return lines


def stats():
    return chromium.stats(driver)


def settled():
    return chromium.settled(driver)


# Elements a supplier's text would have made had it not been escaped.
HOSTILE_ELEMENTS = "return document.querySelectorAll('#hotels script, #hotels b, #hotels img[src=\"x\"], #hotels img:not([data-logo])').length"


def hostile_fields_shown():
    """How many cells show each hostile field as exactly its text."""
    return script("""
        const cells = Array.from(document.querySelectorAll('#hotels tbody td'));
        return arguments[0].map(value => cells.filter(td => td.textContent === value).length)""", CONFIG["hostileFields"])


def dialog():
    try:
        driver.switch_to.alert
        return True
    except NoAlertPresentException:
        return False


def counts():
    return script("""
        const counts = {};
        for (const row of document.querySelectorAll('#counts tbody tr[data-kind]')) {
          counts[row.dataset.kind] = {};
          for (const cell of row.querySelectorAll('td[data-state]')) counts[row.dataset.kind][cell.dataset.state] = Number(cell.textContent);
        }
        return counts""")


try:
    # Every page, for console errors.
    for path in ("/lists", "/lists?sort=rows&order=desc", "/schedules", CONFIG["list"] + "?q=Grand"):
        visit(path)

    # The queue: its counts, then a job queued behind its back shows up without a reload.
    visit("/queue")
    result["queueCounts"] = counts()
    script("window.notReloaded = true")
    before = stats()["refreshes"]
    subprocess.run(CONFIG["enqueue"], check=True, capture_output=True)
    wait(lambda: counts().get("list", {}).get("available", 0) > result["queueCounts"].get("list", {}).get("available", 0),
         "the queued job on the refreshed queue")
    result["refreshed"] = {"counts": counts(), "notReloaded": script("return window.notReloaded === true"),
                           "refreshes": stats()["refreshes"] - before}
    collect_console("/queue (refreshed)")

    # A POST without the CSRF token, from the page's own origin: refused.
    result["postWithoutCSRF"] = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch('/queue', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'},
                         body: 'action=pause&kind=list', redirect: 'manual'}).then(r => done(r.status), e => done(String(e)))""")
    # Chromium logs the refusal it was asked for as an error: not the page's.
    driver.get_log("browser")

    # Retry the dead job with its button.
    job = str(CONFIG["deadJob"])
    driver.find_element(By.CSS_SELECTOR, f'tr[data-job="{job}"] form input[name="action"][value="retry"]') \
        .find_element(By.XPATH, "..").find_element(By.TAG_NAME, "button").click()
    wait(lambda: "said=" in driver.current_url, "the retry's answer")
    result["retrySaid"] = driver.find_element(By.CSS_SELECTOR, "p[role=status]").text
    result["deadAfterRetry"] = len(driver.find_elements(By.CSS_SELECTOR, f'tr[data-job="{job}"]'))
    collect_console("/queue (after retry)")

    # The list: the first screen's logos, the hostile name as text, the screenshot.
    visit(CONFIG["list"])
    wait(lambda: script(chromium.SCREEN_LOADED), "the first screen's logos")
    wait(settled, "the first screen's requests")
    result["dialog"] = dialog()
    result["hostileShown"] = script("""
        return Array.from(document.querySelectorAll('#hotels tbody td')).some(td => td.textContent === arguments[0])""",
                                    CONFIG["hostileName"])
    result["hostileElements"] = script(HOSTILE_ELEMENTS)
    result["hostileFieldsShown"] = hostile_fields_shown()
    driver.save_screenshot(CONFIG["screenshot"])

    # A fast scroll from rest: one big step per frame, then nothing.
    wait(lambda: any(path == "/logo" for path, _, _ in access_log()), "the first screen's logos in the server's log")
    logged_before = len(access_log())
    before_fling = stats()
    script("""
        window.flingDone = false;
        window.flingGap = 0;
        let steps = 0, last = null;
        function step() {
          const now = performance.now();
          if (last !== null) window.flingGap = Math.max(window.flingGap, now - last);
          last = now;
          window.scrollBy(0, 900);
          if (++steps < 6) { requestAnimationFrame(step); return; }
          window.flingStats = Object.assign({}, window.hotelkitWindow);
          window.flingDone = true;
        }
        requestAnimationFrame(step);""")
    wait(lambda: script("return window.flingDone"), "the fling")
    during = script("return window.flingStats")
    wait(lambda: script(chromium.SCREEN_LOADED), "the settled screen's logos")
    wait(settled, "the settled screen's requests")
    after_fling = access_log()[logged_before:]
    result["fling"] = {
        "startedDuring": during["started"] - before_fling["started"],
        # The longest wait between two of the fling's frames: one of 150 ms or more is a pause, after which rows may start.
        "longestFrameGap": script("return window.flingGap"),
        "deferred": during["deferred"] - before_fling["deferred"],
        "scrolled": script("return window.scrollY"),
        "logosAsked": [logo for path, _, logo in after_fling if path == "/logo"],
        # Rows within a row and the 64 px margin of the viewport: what may be asked for once it settles.
        "nearView": [unquote(url.split("url=", 1)[1].split("&", 1)[0]) for url in script("""
            return Array.from(document.querySelectorAll('#hotels tbody tr'))
              .filter(r => { const b = r.getBoundingClientRect(); return b.bottom > -120 && b.top < innerHeight + 120; })
              .map(r => r.querySelector('img[data-logo]')).filter(i => i).map(i => i.dataset.logo)""")],
        "inView": script("""
            return Array.from(document.querySelectorAll('#hotels tbody tr'))
              .filter(r => { const b = r.getBoundingClientRect(); return b.bottom > 0 && b.top < innerHeight; }).length"""),
    }

    # Past 90% of the loaded rows: the next page, asked for once.
    logged_before, pages_before = len(access_log()), stats()["pages"]
    rows_before = script("return document.querySelectorAll('#hotels tbody tr').length")
    script("window.scrollTo(0, document.documentElement.scrollHeight * 0.92 - innerHeight)")
    wait(lambda: stats()["pages"] > pages_before, "the next page")
    wait(lambda: script("return document.querySelectorAll('#hotels tbody tr').length") > rows_before, "the next page's rows")
    wait(settled, "the new rows' logos")
    result["more"] = {
        "rowsBefore": rows_before,
        "rowsAfter": script("return document.querySelectorAll('#hotels tbody tr').length"),
        "pages": stats()["pages"] - pages_before,
        "pageRequests": sum(1 for path, _, _ in access_log()[logged_before:] if path.endswith("/rows")),
    }
    # The rows loaded later (the 151st among them) are the server's, escaped as the page's are.
    result["later"] = {
        "hostileFieldsShown": hostile_fields_shown(),
        "hostileElements": script(HOSTILE_ELEMENTS),
        "dialog": dialog(),
        "columns": script("return Array.from(document.querySelectorAll('#hotels thead th')).map(th => th.textContent)"),
        "cellsPerRow": script("return [...new Set(Array.from(document.querySelectorAll('#hotels tbody tr')).map(r => r.cells.length))]"),
    }
    collect_console(CONFIG["list"] + " (scrolled)")
finally:
    driver.quit()
print(json.dumps(result))
