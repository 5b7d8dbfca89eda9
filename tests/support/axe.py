"""axe-core, pinned, for the accessibility checks of any page: its source (fetched once with npm,
checked by integrity) and its WCAG 2.0/2.1 A and AA violations on a page."""

import base64
import hashlib
import subprocess
import tarfile

import build
from support.figure_page import FigurePage

AXE_VERSION = "4.14.1"
AXE_INTEGRITY = "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ=="
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]  # WCAG 2.0 and 2.1, levels A and AA


def axe_min_js():
    """axe.min.js of the pinned axe-core (the session fixture ``axe_source`` of conftest.py), from the npm registry once (npm pack), checked by integrity."""
    tarball = build.CACHE / f"axe-core-{AXE_VERSION}.tgz"
    if not tarball.exists():
        build.CACHE.mkdir(exist_ok=True)
        subprocess.run(["npm", "pack", f"axe-core@{AXE_VERSION}", "--pack-destination", str(build.CACHE), "--silent"],
                       check=True, stdout=subprocess.DEVNULL)
    digest = "sha512-" + base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
    assert digest == AXE_INTEGRITY, f"{tarball}: integrity {digest} is not the pinned one; delete it"
    with tarfile.open(tarball) as archive:
        return archive.extractfile("package/axe.min.js").read().decode()


def violations(page, axe_source):
    """axe-core's WCAG 2.0/2.1 A and AA violations on `page` (shadow roots included) once nothing in it is aria-busy (text that
    waits for the reader to pause: the chips' names, the matrix's and the math panel's tables):
    [(rule id, [(target, summary)])]. (page.evaluate runs outside the page's CSP, which forbids
    evaluating strings in it.)"""
    FigurePage(page).wait_until("""() => { // in the document and in every open shadow root (each element's figure)
        const busy = (root) => root.querySelector('[aria-busy="true"]') !== null || [...root.querySelectorAll('*')].some((e) => e.shadowRoot && busy(e.shadowRoot));
        return !busy(document);
    }""", None)
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(axe_source)
    found = page.evaluate("tags => axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] })"
                          ".then(r => r.violations.map(v => [v.id, v.nodes.map(n => [n.target.join(' '), n.failureSummary])]))", WCAG_TAGS)
    return found
