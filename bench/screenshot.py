"""The README's picture of the figure: ``docs/screenshot.png``, the opening view once live.

Run it with ``python3 build.py screenshot`` (builds dist/ first) whenever the shipped model or the
opening view changes: headless Chromium at 900 × 700 CSS px, light colour scheme, device pixel ratio
1, the figure's box from the text box to the colour legend (the panels closed).
"""

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # the page object and the engines' drivers: tests/figure_page.py, tests/engines.py

from support.figure_page import FigurePage, browser_context, serve_dist  # noqa: E402

OUT = ROOT / "docs" / "screenshot.png"


def main():
    with sync_playwright() as playwright, serve_dist() as url, \
            browser_context(playwright, viewport={"width": 900, "height": 700}, color_scheme="light") as context:
        page = context.new_page()
        FigurePage(page).open(url + "/")
        top = page.locator(".text-label").bounding_box()
        legend = page.locator("#legend").bounding_box()
        margin = 12
        page.screenshot(path=str(OUT), clip={"x": 0, "y": max(0, top["y"] - margin), "width": 900,
                                             "height": legend["y"] + legend["height"] + margin - max(0, top["y"] - margin)})
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
