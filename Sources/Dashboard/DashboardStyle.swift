import Hummingbird

/// The dashboard's stylesheet and icon, served from `/static/` (the
/// Content-Security-Policy allows no inline style or `data:` icon).
enum DashboardStyle {
    static var stylesheet: Response { DashboardScript.staticFile(css, type: "text/css; charset=utf-8") }
    static var icon: Response { DashboardScript.staticFile(svg, type: "image/svg+xml") }

    /// A list's table is laid out fixed, its widths by column in ``Page/listHeadings``' order, and a supplier's
    /// long text wraps anywhere: a hostile value cannot widen a column past the window.
    static let css = """
        :root { color-scheme: light dark; --line: #8884; --muted: #888; }
        body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 72rem; padding: 0 1rem 2rem; }
        nav { padding: .75rem 0; border-bottom: 1px solid var(--line); }
        nav a { margin-right: .25rem; }
        h1 { font-size: 1.4rem; margin: 1rem 0 .5rem; }
        h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: middle; }
        thead th { position: sticky; top: 0; background: Canvas; }
        #hotels { table-layout: fixed; }
        #hotels tbody tr { height: 44px; }
        #hotels td { overflow-wrap: anywhere; }
        #hotels th:nth-child(1) { width: 32px; }
        #hotels th:nth-child(2), #hotels th:nth-child(3) { width: 17%; }
        #hotels th:nth-child(4) { width: 9%; }
        #hotels th:nth-child(5) { width: 15%; }
        #hotels th:nth-child(6) { width: 5%; }
        #hotels th:nth-child(7) { width: 7%; }
        #hotels th:nth-child(8) { width: 13%; }
        #hotels th:nth-child(9) { width: 11%; }
        #hotels td:nth-child(7), #hotels td:nth-child(8) { font-variant-numeric: tabular-nums; }
        #hotels td:nth-child(9) { white-space: nowrap; }
        img[data-logo] { display: block; width: 32px; height: 32px; border-radius: 4px; background: var(--line); }
        form.inline { display: inline; }
        input[type=search] { min-width: 16rem; }
        p[role=status] { padding: .5rem; border: 1px solid var(--line); }
        tr.gone, tr.stale { color: var(--muted); }
        """

    static let svg = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#2a6"/>\
        <path d="M4 12V4h2v3h4V4h2v8h-2V9H6v3z" fill="#fff"/></svg>
        """
}
