import Hummingbird

/// The dashboard's one script, served from `/static/dashboard.js` (the
/// Content-Security-Policy allows no inline script). Pages read without it;
/// with it:
/// - a list's logos load as the tutorials load them: only for rows in the
///   viewport (IntersectionObserver, with a small margin as prefetch), a row
///   that leaves has its request aborted (AbortController), during a fast
///   scroll nothing starts until the scroll settles, and the next rows are
///   fetched once the user passes 90% of what is loaded: rendered by the
///   server (`/lists/ID/rows`), as the page's own rows are, and moved in
///   from a `<template>`;
/// - the queue refreshes every 2 s without a reload.
///
/// `window.hotelkitWindow` counts what it did, for the browser tests.
enum DashboardScript {
    static var response: Response { staticFile(source, type: "text/javascript; charset=utf-8") }

    /// A static file, served from memory: revalidated on each visit, so a new version is seen at once.
    static func staticFile(_ text: String, type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static let source = #"""
        "use strict";
        (() => {
          const stats = { started: 0, loaded: 0, aborted: 0, failed: 0, deferred: 0, pages: 0, refreshes: 0 };
          window.hotelkitWindow = stats;

          function refreshQueue() {
            const main = document.getElementById("queue");
            if (!main) return;
            setInterval(async () => {
              try {
                const response = await fetch(main.dataset.refresh);
                if (!response.ok) return;
                const template = document.createElement("template");
                template.innerHTML = await response.text();
                const fresh = template.content.getElementById("queue");
                if (fresh) { main.replaceChildren(...fresh.childNodes); stats.refreshes++; }
              } catch (_) { /* the next tick tries again */ }
            }, 2000);
          }

          function listWindow() {
            const table = document.getElementById("hotels");
            if (!table) return;
            const body = table.tBodies[0];
            // The next rows' URL (/lists/ID/rows?after=…); the link to the next page is for a browser without the script.
            let next = table.dataset.more || null;
            const nextLink = document.querySelector('a[rel="next"]');
            if (nextLink && next !== null) nextLink.parentElement.hidden = true;
            const FAST = 2;        // px per ms: faster than this, nothing starts
            const SETTLE = 150;    // ms without a scroll event: the scroll has settled
            const visible = new Set();
            const loading = new Map();
            let fast = false, settleTimer = null, last = { y: window.scrollY, t: performance.now() }, fetching = false;

            function start(row) {
              const img = row.querySelector("img[data-logo]");
              if (!img || img.dataset.state) return;
              const controller = new AbortController();
              loading.set(row, controller);
              img.dataset.state = "loading";
              stats.started++;
              fetch(img.dataset.logo, { signal: controller.signal })
                .then(response => { if (!response.ok) throw new Error(String(response.status)); return response.blob(); })
                .then(blob => { img.src = URL.createObjectURL(blob); img.dataset.state = "loaded"; stats.loaded++; })
                .catch(error => {
                  if (error.name === "AbortError") { delete img.dataset.state; stats.aborted++; }
                  else { img.dataset.state = "failed"; stats.failed++; }
                })
                .finally(() => loading.delete(row));
            }

            // How fast the list moves, from the scroll position at each look (a scroll event, or an observer's
            // callback, which can come before the frame's scroll event): the first move after a pause has no
            // speed yet, and waits for the next look or the settle. Slowing down starts the rows in view.
            function look() {
              const now = performance.now(), y = window.scrollY, dy = Math.abs(y - last.y), dt = now - last.t;
              if (dy === 0) return;
              last = { y, t: now };
              const wasFast = fast;
              fast = dt > 100 || dy / Math.max(1, dt) > FAST;
              clearTimeout(settleTimer);
              settleTimer = setTimeout(() => { fast = false; for (const row of visible) start(row); }, SETTLE);
              if (wasFast && !fast) for (const row of visible) start(row);
            }

            const observer = new IntersectionObserver(entries => {
              look();
              for (const entry of entries) {
                if (entry.isIntersecting) {
                  visible.add(entry.target);
                  if (fast) stats.deferred++; else start(entry.target);
                } else {
                  visible.delete(entry.target);
                  const controller = loading.get(entry.target);
                  if (controller) controller.abort();
                }
              }
            }, { rootMargin: "64px 0px" });
            const watch = rows => { for (const row of rows) observer.observe(row); };

            // The rows after these come rendered by the server, as the page's own rows are (one renderer, every
            // value escaped there): a <tbody> whose data-more is the URL of the rows after it.
            async function more() {
              if (fetching || next === null) return;
              if (window.scrollY + window.innerHeight < 0.9 * document.documentElement.scrollHeight) return;
              fetching = true;
              try {
                const response = await fetch(next);
                if (!response.ok) return;
                const template = document.createElement("template");
                template.innerHTML = await response.text();
                const fresh = template.content.querySelector("tbody");
                if (!fresh) return;
                const rows = Array.from(fresh.rows);
                body.append(...rows);
                watch(rows);
                stats.pages++;
                next = fresh.dataset.more || null;
              } finally {
                fetching = false;
              }
              more();
            }

            window.addEventListener("scroll", () => { look(); more(); }, { passive: true });
            watch(body.rows);
            more();
          }

          refreshQueue();
          listWindow();
        })();
        """#
}
