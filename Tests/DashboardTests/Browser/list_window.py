"""Drives a list page of `hotels dashboard` in headless Chromium (Debian's, through
chromium-driver) and prints what its window loading did, as one JSON object.

usage: list_window.py BASE_URL LIST_PATH

Every wait is for a condition in the page (WebDriverWait), never a fixed time;
the network is slowed (Chrome DevTools' emulation) so that logos are still in
flight when their rows leave.
"""
import json
import sys

from selenium.webdriver.support.ui import WebDriverWait

from chromium import settled, start, stats as page_stats

BASE, PATH = sys.argv[1], sys.argv[2]
WAIT = 120

driver = start()
result = {}
try:
    def stats():
        return page_stats(driver)

    def wait(condition, what):
        WebDriverWait(driver, WAIT).until(lambda _: condition(), message=what)

    def rows_in_view():
        return driver.execute_script("""
            const rows = Array.from(document.querySelectorAll('#hotels tbody tr'));
            return rows.filter(r => { const b = r.getBoundingClientRect(); return b.bottom > 0 && b.top < innerHeight; }).length""")

    def unloaded_in_view():
        return driver.execute_script("""
            const rows = Array.from(document.querySelectorAll('#hotels tbody tr'));
            return rows.filter(r => { const b = r.getBoundingClientRect(); return b.bottom > 0 && b.top < innerHeight; })
                       .filter(r => { const i = r.querySelector('img[data-logo]'); return i && i.dataset.state !== 'loaded'; }).length""")

    driver.get(BASE + PATH)
    wait(lambda: driver.execute_script("return !!window.hotelkitWindow"), "the script ran")
    wait(lambda: unloaded_in_view() == 0, "the first screen's logos")
    # The margin's logos too: none in flight when the first screen is counted.
    wait(lambda: settled(driver), "the first screen's requests")
    first = stats()
    result["first"] = first
    result["visibleRows"] = rows_in_view()
    result["rowsLoaded"] = driver.execute_script("return document.querySelectorAll('#hotels tbody tr').length")

    # Slow logos: 1.5 s each way, so a fling leaves rows with requests in flight however loaded the machine is.
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                           {"offline": False, "latency": 1500, "downloadThroughput": -1, "uploadThroughput": -1})
    # A slow drag to start logos, then, in the frame after they start (in the page, with no round trip to
    # this script in between), a fling well past them: one scroll step per frame.
    driver.execute_script("""
        window.flingDone = false;
        const start = window.hotelkitWindow.started;
        let steps = 0;
        function step() {
          window.scrollBy(0, 800);
          if (++steps < 4) { requestAnimationFrame(step); return; }
          // Taken at the fling's last frame, before the settle timer can run.
          window.flingStats = Object.assign({}, window.hotelkitWindow);
          window.flingDone = true;
        }
        function startedYet() {
          if (window.hotelkitWindow.started > start) {
            window.beforeFling = Object.assign({}, window.hotelkitWindow);
            requestAnimationFrame(step);
          } else {
            requestAnimationFrame(startedYet);
          }
        }
        window.scrollBy(0, 300);
        requestAnimationFrame(startedYet);""")
    wait(lambda: driver.execute_script("return window.flingDone"), "the slow drag's logos, then the fling")
    before_fling, during = driver.execute_script("return window.beforeFling"), driver.execute_script("return window.flingStats")
    result["beforeFling"], result["duringFling"] = before_fling, during
    result["inFlightAtFling"] = before_fling["started"] - before_fling["loaded"] - before_fling["aborted"] - before_fling["failed"]
    wait(lambda: unloaded_in_view() == 0, "the settled screen's logos")
    result["settled"] = stats()

    # Past 90% of what is loaded: the next page comes from the API.
    driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                           {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    driver.execute_script("window.scrollTo(0, document.documentElement.scrollHeight)")
    wait(lambda: stats()["pages"] >= 1, "the next page")
    result["afterMore"] = stats()
    result["rowsAfterMore"] = driver.execute_script("return document.querySelectorAll('#hotels tbody tr').length")

    # A second visit revalidates the first screen's logos.
    driver.get(BASE + PATH)
    wait(lambda: driver.execute_script("return !!window.hotelkitWindow"), "the script ran again")
    wait(lambda: unloaded_in_view() == 0, "the second visit's logos")
    result["secondVisit"] = stats()
finally:
    driver.quit()
print(json.dumps(result))
