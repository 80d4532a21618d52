"""What the browser tests share: Debian's headless Chromium through chromium-driver, and the page's own counts."""
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

# Whether every row in the viewport has its logo (a row without one counts as done).
SCREEN_LOADED = """
    return Array.from(document.querySelectorAll('#hotels tbody tr'))
      .filter(r => { const b = r.getBoundingClientRect(); return b.bottom > 0 && b.top < innerHeight; })
      .every(r => { const i = r.querySelector('img[data-logo]'); return !i || i.dataset.state === 'loaded'; })"""


def start(console=False):
    """A headless Chromium at 1000×800; with `console`, its console log is kept for get_log("browser")."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1000,800"):
        options.add_argument(argument)
    if console:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def stats(driver):
    """What the page's window loading did so far (window.hotelkitWindow)."""
    return driver.execute_script("return Object.assign({}, window.hotelkitWindow)")


def settled(driver):
    """Whether every logo request the page started has ended."""
    current = stats(driver)
    return current["started"] == current["loaded"] + current["aborted"] + current["failed"]
