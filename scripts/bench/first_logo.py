"""The list page's time to first logo in headless Chromium (Debian's, through chromium-driver),
for scripts/compare dashboard: from the navigation's start to the first logo's response, and to
the last of the first screen's, by the browser's own Resource Timing. Every wait is for a
condition in the page."""
import statistics

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

FIRST_SCREEN = """
    return Array.from(document.querySelectorAll('#hotels tbody tr'))
      .filter(r => { const b = r.getBoundingClientRect(); return b.bottom > 0 && b.top < innerHeight; })
      .every(r => { const i = r.querySelector('img[data-logo]'); return !i || i.dataset.state === 'loaded'; })"""

TIMES = """
    const navigation = performance.getEntriesByType('navigation')[0];
    const logos = performance.getEntriesByType('resource').filter(e => e.name.includes('/logo?'));
    return {html: navigation.responseEnd, first: Math.min(...logos.map(e => e.responseEnd)),
            screen: Math.max(...logos.map(e => e.responseEnd)), logos: logos.length}"""


def measure(url, runs):
    """Median times (ms) over `runs` visits: each cold (the browser's cache disabled), then once revalidated."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1000,800"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        def visit(cache):
            driver.execute_cdp_cmd("Network.enable", {})
            driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": not cache})
            driver.get(url)
            WebDriverWait(driver, 60).until(lambda _: driver.execute_script("return !!window.hotelkitWindow && (" + FIRST_SCREEN.replace("return", "", 1) + ")"))
            return driver.execute_script(TIMES)

        cold = [visit(cache=False) for _ in range(runs)]
        warm = [visit(cache=True) for _ in range(runs)]
    finally:
        driver.quit()

    def median(samples, key):
        return statistics.median(sample[key] for sample in samples)
    return {name: {key: median(samples, key) for key in ("html", "first", "screen", "logos")} for name, samples in (("cold", cold), ("revalidated", warm))}
