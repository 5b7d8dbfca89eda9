"""The figure in two real course sites, each built by its own generator from a few pages, with dist/
as the site's ``attention-live/`` folder: MkDocs with Material (instant navigation on) and Sphinx
with sphinx-book-theme. A theme styles every details, summary, legend and span of its pages; in
Chromium, at a desktop's and a phone's width, the figure must keep its numbers (CPython's), its
column and its own titles and labels there, and come back live after the site's own navigation.
"""

import contextlib
import os
import subprocess
import sys
from collections import namedtuple

import numpy as np
import pytest

import build
from support.figure_page import NOT_EMPTY, TOLERANCE, WAIT_MS, FigurePage, Watch, above, as_long_as, browser_context, serving

TEXT = "Alice said hello to the Rabbit."
FIGURE_HTML = f'<attention-live text="{TEXT}" layer="2" head="3"></attention-live>'
SUMMARIES = ["Watch it learn", "All heads at once", "This head's whole attention matrix", "Show the math", "The next token",
             "Attention stacked on attention"]
PANELS = ["heads", "matrix", "math", "next", "stack"]
WIDTHS = [1280, 390]
Site = namedtuple("Site", "url figure_path instant")  # instant: the theme swaps pages in without reloading
LAYOUT = r"""(el) => {
    const root = el.shadowRoot ?? el, box = el.getBoundingClientRect(), column = el.closest('article').getBoundingClientRect();
    const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + [...e.classList].map((c) => '.' + c).join('')
        + (e.id ? '' : ` in #${e.parentElement?.closest('[id]')?.id}`) + ` "${e.textContent.trim().slice(0, 30)}"`;
    const out = [];
    const clips = (e) => { const s = getComputedStyle(e); return s.overflowX !== 'visible' || s.clip !== 'auto' || s.clipPath !== 'none'; };
    const range = document.createRange();
    for (const part of root.querySelectorAll('*')) {  // what is painted: a box with a background, border or shadow, a control, text
        const r = part.getBoundingClientRect(), style = getComputedStyle(part);
        if (r.width === 0 && r.height === 0 || style.visibility === 'hidden') continue;
        const paints = /^(canvas|img|svg|input|textarea|button|select)$/i.test(part.tagName) || !/^rgba\(.*, 0\)$/.test(style.backgroundColor)
            || style.backgroundImage !== 'none' || style.boxShadow !== 'none' || ['Top', 'Right', 'Bottom', 'Left'].some((side) => parseFloat(style[`border${side}Width`]) > 0);
        let right = paints ? r.right : -Infinity;
        for (const node of part.childNodes) {
            if (node.nodeType !== Node.TEXT_NODE || !node.textContent.trim()) continue;
            range.selectNodeContents(node);
            for (const line of range.getClientRects()) right = Math.max(right, line.right);
        }
        for (let a = part; a && a !== el; a = a.parentElement)  // as clipped by the part or a scrolling box of the figure
            if (clips(a)) right = Math.min(right, a.getBoundingClientRect().right);
        if (right > box.right + 1) out.push(`${name(part)} ends at ${right}`);
    }
    return {box: [box.left, box.right], column: [column.left, column.right], out,
            scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth};
}"""
UNOBSTRUCTED = r"""(el) => {
    const root = el.shadowRoot ?? el;
    const parts = [...root.querySelectorAll('[id$="-panel"] > summary'), root.querySelector('[id$="layers"] > legend'),
                   root.querySelector('[id$="heads"] > legend'), ...[...root.querySelectorAll('.chip .label')].slice(0, 4)];
    const over = (owner, pseudo, line) => {  // an absolutely placed ::before or ::after box of owner over the text's first line
        const s = getComputedStyle(owner, pseudo);
        if (['none', 'normal'].includes(s.content) || s.display === 'none' || s.visibility === 'hidden' || !['absolute', 'fixed'].includes(s.position)) return false;
        let base = {left: 0, top: 0};
        if (s.position === 'absolute') {
            let cb = owner;
            while (cb.parentElement && getComputedStyle(cb).position === 'static') cb = cb.parentElement;
            const r = cb.getBoundingClientRect();
            base = {left: r.left + cb.clientLeft, top: r.top + cb.clientTop};
        }
        const left = base.left + parseFloat(s.left), top = base.top + parseFloat(s.top);
        return left < line.right && left + parseFloat(s.width) > line.left && top < line.bottom && top + parseFloat(s.height) > line.top;
    };
    return parts.map((part) => {
        part.scrollIntoView({block: 'center'});
        const walker = document.createTreeWalker(part, NodeFilter.SHOW_TEXT, {acceptNode: (n) => n.textContent.trim() ? 1 : 3});
        const range = document.createRange();
        range.selectNodeContents(walker.nextNode());
        const line = range.getClientRects()[0], x = line.left + 3, y = line.top + line.height / 2;
        const hit = part.getRootNode().elementFromPoint(x, y);  // a pseudo-element hits as its owner: hence covers
        const covers = [];
        for (let e = part; e && e !== el; e = e.parentElement)
            for (const pseudo of ['::before', '::after']) if (over(e, pseudo, line)) covers.push(e.tagName.toLowerCase() + pseudo);
        return {text: part.textContent.trim(), hit: hit === null ? null : hit.tagName.toLowerCase(), inside: part.contains(hit), covers};
    });
}"""
CHIPS = """(el) => [...(el.shadowRoot ?? el).querySelectorAll('.chip')].map((chip) => {
    const label = chip.querySelector('.label');
    return {label: label.textContent, transform: getComputedStyle(label).textTransform};
})"""
DRAWN = {"[aria-busy='true']": {"count": 0}, ".math-table tbody tr": {"count": above(0)}, ".predictions li": {"count": above(0)}}  # the panels' numbers, settled


def generate(*arguments, cwd):
    """Run a generator (python -m ...) with .venv's python; fail with its output if it fails."""
    done = subprocess.run([sys.executable, "-m", *arguments], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def dist():
    """dist/, built first if missing."""
    if not (build.DIST / "index.html").exists():
        build.build()
    return build.DIST


def assert_has_dist(folder, dist):
    """Every file of dist/ (worker.js, the .wasm, the .tar, the weights among them) is in ``folder``, whole."""
    files = [path for path in dist.rglob("*") if path.is_file()]
    for wanted in ("worker.js", ".wasm", ".tar", "model.safetensors"):
        assert any(path.name.endswith(wanted) for path in files), wanted
    missing = [str(p) for p in files if not (folder / p.relative_to(dist)).is_file() or (folder / p.relative_to(dist)).stat().st_size != p.stat().st_size]
    assert not missing, missing


@pytest.fixture(scope="module")
def mkdocs_site(tmp_path_factory, dist):
    """MkDocs + Material: index.md (prose, a note, a collapsed details block, the figure as raw HTML, its
    script through extra_javascript) and other.md. The server is bound first: Material's instant
    loader only takes links that its sitemap lists, and it compares their port, so site_url needs it."""
    folder = tmp_path_factory.mktemp("mkdocs")
    (folder / "docs").mkdir()
    (folder / "docs" / "attention-live").symlink_to(dist, target_is_directory=True)  # MkDocs copies its files
    (folder / "docs" / "index.md").write_text(f"""# Unit 3: attention\n\nHow each token of a sentence looks back at the earlier ones.\n
!!! note\n    The numbers below are computed in your browser.\n\n??? details "Where the model comes from"\n    A tiny GPT trained on children's books.\n
{FIGURE_HTML}\n\nThen go on to the [Other page](other.md).\n""", encoding="utf-8")
    (folder / "docs" / "other.md").write_text("# Other page\n\nExercises.\n\n[Back to unit 3](index.md)\n", encoding="utf-8")
    server = build.make_server(0, folder / "site")
    (folder / "mkdocs.yml").write_text(f"""site_name: Course\nsite_url: http://127.0.0.1:{server.server_address[1]}/
theme: {{name: material, font: false, features: [navigation.instant]}}\nmarkdown_extensions: [admonition, pymdownx.details]
extra_javascript: [{{path: attention-live/attention-live.js, type: module}}]\nnav: [index.md, other.md]\n""", encoding="utf-8")
    generate("mkdocs", "build", "--strict", cwd=folder)  # font: false: no request to Google Fonts
    assert_has_dist(folder / "site" / "attention-live", dist)
    with serving(server) as url:
        yield Site(url, "/", instant=True)


@pytest.fixture(scope="module")
def sphinx_site(tmp_path_factory, dist):
    """Sphinx + sphinx-book-theme, offline: index.rst (the script and the figure in a raw html block,
    a toctree to other.rst) and other.rst; dist/ lands as attention-live/ through html_extra_path."""
    source = tmp_path_factory.mktemp("sphinx")
    (source / "extra").mkdir()
    (source / "extra" / "attention-live").symlink_to(dist, target_is_directory=True)
    (source / "conf.py").write_text('project = "Course"\nextensions = []\nhtml_theme = "sphinx_book_theme"\nhtml_extra_path = ["extra"]\n'
                                    f'html_favicon = {str(build.ROOT / "web" / "favicon.png")!r}\n'
                                    'html_context = {"default_mode": "light"}  # else the theme logs "invalid theme mode" as an error\n',
                                    encoding="utf-8")
    (source / "index.rst").write_text(f"""Unit 3: attention\n=================\n\nHow each token of a sentence looks back at the earlier ones.\n
.. raw:: html\n\n   <script type="module" src="attention-live/attention-live.js"></script>\n   {FIGURE_HTML}\n
.. toctree::\n\n   other\n""", encoding="utf-8")
    (source / "other.rst").write_text("Other page\n==========\n\nExercises. :doc:`Back to unit 3 <index>`\n", encoding="utf-8")
    generate("sphinx", "-b", "html", "-W", "-q", str(source), str(source / "html"), cwd=source)
    assert_has_dist(source / "html" / "attention-live", dist)
    with serving(build.make_server(0, source / "html")) as url:
        yield Site(url, "/index.html", instant=False)


@pytest.fixture(scope="module", params=["mkdocs", "sphinx"])
def site(request):
    return request.getfixturevalue(f"{request.param}_site")


@contextlib.contextmanager
def figure_tab(playwright, site, width):
    """A fresh Chromium on the site's figure page at ``width``, the figure live; yields (page, watch). At
    the end: no page error, no console error, no request off the site's origin."""
    watch = Watch(site.url)
    with browser_context(playwright, viewport={"width": width, "height": 900}) as context:
        page = watch.page(watch.context(context).new_page())
        page.goto(site.url + site.figure_path)
        wait_live(page)
        yield page, watch
    watch.check()


def wait_live(page):
    """Wait, by signals, for the page's figure: its element defined (asking for .ready starts it), ready, and TEXT's attention shown."""
    page.wait_for_function("() => document.querySelector('attention-live')?.ready !== undefined", timeout=WAIT_MS)
    element = FigurePage(page, "attention-live")
    element.ready()
    element.wait_for(text=TEXT, ids=NOT_EMPTY, matrix=as_long_as("ids"))


def check_numbers(page, figure):
    """state() equals CPython's figure for TEXT: ids, tokens, the whole matrix of layer 2, head 3 and the
    selected query's row, within TOLERANCE."""
    state = FigurePage(page, "attention-live").state()
    result = figure.analyse(TEXT)
    assert (state["text"], state["ids"], state["tokens"]) == (TEXT, result["ids"], result["labels"])
    assert (state["layer"], state["head"]) == (2, 3)
    want = result["attention"][1, 2]
    assert float(np.max(np.abs(np.asarray(state["matrix"]) - want))) <= TOLERANCE
    assert float(np.max(np.abs(np.asarray(state["weights"]) - want[state["token"]]))) <= TOLERANCE
    chips = page.locator("attention-live").evaluate(CHIPS)
    assert [c["label"] for c in chips] == state["tokens"]  # as the tokenizer made them: no theme's text-transform
    assert {c["transform"] for c in chips} == {"none"}


def check_fits(page):
    """The figure lies in its content column, no part of it passes its right edge, and the page does not scroll sideways."""
    layout = page.locator("attention-live").evaluate(LAYOUT)
    (left, right), (column_left, column_right) = layout["box"], layout["column"]
    assert column_left - 1 <= left < right <= column_right + 1, layout
    assert layout["out"] == [], "\n".join(layout["out"])
    assert layout["scrollWidth"] <= layout["innerWidth"], f"the page scrolls sideways: {layout}"


@pytest.mark.parametrize("width", WIDTHS)
def test_the_figure_is_right_and_fits_its_column(playwright, site, width, figure):
    """Live on the theme's page: CPython's numbers, the tokenizer's labels, inside the column, closed
    and with its four panels opened by their summaries, as a reader does (and drawn)."""
    with figure_tab(playwright, site, width) as (page, _):
        check_numbers(page, figure)
        check_fits(page)
        element = FigurePage(page, "attention-live")
        for name in PANELS:
            page.locator(f"attention-live [id$='{name}-panel'] > summary").click()
            element.wait_for(panels={name: True})
        element.wait_for_elements(DRAWN)
        check_fits(page)


@pytest.mark.parametrize("width", WIDTHS)
def test_titles_and_labels_are_unobstructed(playwright, site, width):
    """The start of each panel's summary, of the Layer and Head legends and of the first chips' labels
    is the part itself to a hit test, and no theme's ::before or ::after box (Material's admonition
    icon on every summary) lies over it."""
    with figure_tab(playwright, site, width) as (page, _):
        parts = page.locator("attention-live").evaluate(UNOBSTRUCTED)
        n = len(SUMMARIES)
        assert [p["text"] for p in parts[:n]] == SUMMARIES and [p["text"] for p in parts[n:n + 2]] == ["Layer", "Head"]
        blocked = [f"{p['text']!r}: hit {p['hit']}, covered by {p['covers']}" for p in parts if not p["inside"] or p["covers"]]
        assert blocked == [], "\n".join(blocked)


@pytest.mark.parametrize("width", WIDTHS)
def test_leaving_and_coming_back(playwright, site, width, figure):
    """To the other page by the site's own link and back by its link, then twice back in history: each
    time the figure is live again, right and in its column, with no error and no request off the site.
    With Material's instant navigation the document stays (a marker survives): the element is swapped
    out and in, not reloaded."""
    with figure_tab(playwright, site, width) as (page, watch):
        page.evaluate("() => { window.stayed = true; }")
        for link, heading in (("Other page", "Other page"), ("Back to unit 3", "Unit 3: attention")):
            page.locator("article a", has_text=link).first.click()
            page.locator("article h1", has_text=heading).wait_for(timeout=WAIT_MS)
        wait_live(page)
        assert page.evaluate("() => window.stayed === true") == site.instant
        assert page.locator("attention-live").count() == 1
        check_numbers(page, figure)
        check_fits(page)
        page.go_back()
        page.locator("article h1", has_text="Other page").wait_for(timeout=WAIT_MS)
        page.go_back()
        wait_live(page)
        check_numbers(page, figure)
        check_fits(page)
        assert watch.problems == []
