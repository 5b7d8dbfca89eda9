"""embed.html's snippets for site generators, each built into a small course site by the real generator
from the snippet exactly as the served embed.html prints it (each file's part written into that file
as it is), served, and driven in Chromium: the figure live, with CPython's numbers, and live again after
the site's own navigation (to another page and back by its links, then twice back in history).

* MkDocs with Material (instant navigation on): the element, its script through extra_javascript as a
  module; and the iframe of a figure on another site, sized by the snippet's script file.
* Sphinx with sphinx-book-theme: html_extra_path and a raw HTML block.
* Docusaurus (npm, pinned in tests/docusaurus-site/, installed by build.py into .cache/docusaurus/):
  the config's scripts and the element in an MDX page, with the site's client-side routing.
* Quarto's raw HTML block, through Debian's Pandoc (Quarto's own installer downloads a binary, which
  the tests cannot): Pandoc keeps the element out of a paragraph, where the bare line would be wrapped.

The course site's own files hold the release (dist/ copied, as a course author unpacks the zip) as
``attention-live/``, where the snippets expect it; the iframe snippet's figure is served from a second
origin. MyST's snippet is tested by tests/test_myst_widget.py; Moodle's and Canvas's (plain HTML) by
tests/test_release.py.
"""

import contextlib
import os
import re
import shutil
import subprocess
import sys
from collections import namedtuple

import numpy as np
import pytest
import yaml

import build
from support.figure_page import NOT_EMPTY, TOLERANCE, WAIT_MS, FigurePage, Watch, as_long_as, browser_context, serving
from support.snippets import embed_snippets, part

FOLDER = "attention-live"  # where the snippets expect the release among the course site's files
TEXT, LAYER, HEAD, TOKEN = "Then the Queen turned to Alice and said", 2, 3, 7  # the snippets' view (token 0-based here)
DOCUSAURUS = build.CACHE / "docusaurus" / "node_modules"
PANDOC = "/usr/bin/pandoc"
JUPYTER_BOOK = build.CACHE / "jupyter-book-1" / "bin" / "jupyter-book"  # tests/jupyter-book-1/requirements.txt, installed by build.py
# A site: its origin, the figure page's path, the element holding the pages' content (links and
# headings are looked for there), and whether it swaps pages in without reloading the document.
# own_errors: page errors the generator's own pages raise, with or without the figure (each checked to be so)
Site = namedtuple("Site", "url figure_path content instant own_errors", defaults=((),))

# A page of the figure's host that frames index.html and records the heights its figure sends.
HEIGHT_HOST = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Heights</title><link rel="icon" href="data:,"></head>
<body style="margin: 0"><iframe title="Attention, live" style="border: 0; height: 300px"></iframe><script>
  window.measured = { height: null, changed: 0 };  // the last height the figure sent, and when
  addEventListener("message", (event) => {
    const frame = document.querySelector("iframe");
    if (event.source !== frame.contentWindow || event.data?.type !== "attention-live:resize") return;
    if (event.data.height !== measured.height) Object.assign(measured, { height: event.data.height, changed: performance.now() });
    frame.style.height = `${event.data.height}px`;
  });
</script></body></html>"""


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    """dist/ (built first if missing) copied whole, as a course author's unpacked release: a copy, so
    that another build of dist/ during the tests changes nothing here."""
    if not (build.DIST / "index.html").exists():
        build.build()
    copy = tmp_path_factory.mktemp("release") / FOLDER
    shutil.copytree(build.DIST, copy)
    loader = (copy / "attention-live.js").read_text(encoding="utf-8")
    (folder,) = re.findall(r'import "\./([0-9a-f]{16})/attention-live\.js"', loader)
    assert (copy / folder / "build.json").is_file() and (copy / folder / "worker.js").is_file(), "dist/ was half-written: build it again"
    return copy


@pytest.fixture(scope="module")
def figure_host(tmp_path_factory, release):
    """The release on a plain static server of its own (127.0.0.1), at /attention-live/: where the iframe
    snippets' figure is hosted, and the embed.html the snippets are read from; with heights.html
    (HEIGHT_HOST) beside it. Yields its origin."""
    site = tmp_path_factory.mktemp("figure-host")
    (site / FOLDER).symlink_to(release, target_is_directory=True)
    (site / "heights.html").write_text(HEIGHT_HOST, encoding="utf-8")
    with serving(build.make_server(0, site)) as url:
        yield url


@pytest.fixture(scope="module")
def snippets(playwright, figure_host):
    """embed.html's snippets by name, as the page served from the figure's host prints them."""
    with browser_context(playwright) as context:
        return {snippet["name"]: snippet for snippet in embed_snippets(context, f"{figure_host}/{FOLDER}/embed.html")}


def generate(command, cwd, env=None):
    """Run a generator's command; fail with its output if it fails."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env or {})})
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def assert_has_release(folder, release):
    """Every file of the release (the worker, the .wasm, the .tar, the weights among them) is in the
    built site's ``folder``, whole."""
    files = [path for path in release.rglob("*") if path.is_file()]
    missing = [str(p) for p in files if not (folder / p.relative_to(release)).is_file() or (folder / p.relative_to(release)).stat().st_size != p.stat().st_size]
    assert not missing, f"{len(missing)} of {len(files)} files of the release missing from the site: {missing[:5]}"


def mkdocs_project(folder, snippet, docs_files, server, host):
    """An MkDocs + Material project in ``folder``: its mkdocs.yml the site's own lines, then the snippet's
    mkdocs.yml part as printed; index.md the unit page with the snippet's page part, other.md a page to
    go to; ``docs_files`` ({name: text}) more files of docs/. Material's instant loader only follows
    links its sitemap lists, comparing their host and port: site_url names the bound server's."""
    (folder / "docs").mkdir(exist_ok=True)
    for name, text in docs_files.items():
        (folder / "docs" / name).write_text(text, encoding="utf-8")
    (folder / "docs" / "index.md").write_text(f"# Unit 3: attention\n\nHow each token of a sentence looks back at the earlier ones.\n\n"
                                              f"{part(snippet, 'docs/unit.md')}\n\nThen go on to the [Other page](other.md).\n", encoding="utf-8")
    (folder / "docs" / "other.md").write_text("# Other page\n\nExercises.\n\n[Back to unit 3](index.md)\n", encoding="utf-8")
    (folder / "mkdocs.yml").write_text(f"site_name: Course\nsite_url: http://{host}:{server.server_address[1]}/\n"
                                       "theme: {name: material, font: false, features: [navigation.instant]}\nnav: [index.md, other.md]\n"
                                       f"{part(snippet, 'mkdocs.yml')}\n", encoding="utf-8")
    generate([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=folder)  # font: false: no request to Google Fonts


@pytest.fixture(scope="module")
def mkdocs_site(tmp_path_factory, snippets, release):
    """MkDocs + Material from the "mkdocs" snippet: the release in docs/attention-live/."""
    folder = tmp_path_factory.mktemp("mkdocs")
    copy_release(release, folder / "docs" / FOLDER)
    server = build.make_server(0, folder / "site")
    mkdocs_project(folder, snippets["mkdocs"], {}, server, "127.0.0.1")
    assert_has_release(folder / "site" / FOLDER, release)
    assert "<script type=\"module\"" not in (folder / "site" / "index.html").read_text(encoding="utf-8").split("<article")[1].split("</article>")[0]
    with serving(server) as url:
        yield Site(url, "/", "article", instant=True)


@pytest.fixture(scope="module")
def mkdocs_frame_site(tmp_path_factory, snippets, figure_host):
    """MkDocs + Material from the "mkdocs-iframe" snippet: the figure's frame from figure_host, its
    script file in docs/. Served as localhost, another site than the figure's 127.0.0.1."""
    folder = tmp_path_factory.mktemp("mkdocs-frame")
    snippet = snippets["mkdocs-iframe"]
    server = build.make_server(0, folder / "site")
    mkdocs_project(folder, snippet, {"attention-live-frames.js": part(snippet, "docs/attention-live-frames.js")}, server, "localhost")
    with serving(server, host="localhost") as url:
        yield Site(url, "/", "article", instant=True)


def copy_release(release, target):
    """The release as a course author puts it into a site's sources, at ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.symlink_to(release, target_is_directory=True)


@pytest.fixture(scope="module")
def sphinx_site(tmp_path_factory, snippets, release):
    """Sphinx + sphinx-book-theme from the "sphinx" snippet: conf.py's own lines, then its conf.py part;
    index.rst with its unit.rst part; the release in _extra/attention-live/."""
    snippet = snippets["sphinx"]
    source = tmp_path_factory.mktemp("sphinx")
    copy_release(release, source / "_extra" / FOLDER)
    (source / "conf.py").write_text('project = "Course"\nhtml_theme = "sphinx_book_theme"\n'
                                    f'html_favicon = {str(build.ROOT / "web" / "favicon.png")!r}\n'
                                    'html_context = {"default_mode": "light"}  # else the theme logs "invalid theme mode" as an error\n'
                                    f"{part(snippet, 'conf.py')}\n", encoding="utf-8")
    (source / "index.rst").write_text("Unit 3: attention\n=================\n\nHow each token of a sentence looks back at the earlier ones.\n\n"
                                      f"{part(snippet, 'unit.rst')}\n\nThen go on to the :doc:`Other page <other>`.\n\n"
                                      ".. toctree::\n   :hidden:\n\n   other\n", encoding="utf-8")
    (source / "other.rst").write_text("Other page\n==========\n\nExercises. :doc:`Back to unit 3 <index>`\n", encoding="utf-8")
    generate([sys.executable, "-m", "sphinx", "-b", "html", "-W", "-q", str(source), str(source / "html")], cwd=source)
    assert_has_release(source / "html" / FOLDER, release)
    with serving(build.make_server(0, source / "html")) as url:
        yield Site(url, "/index.html", "article", instant=False)


def merged(base, more):
    """The mapping ``base`` with ``more``'s keys set into it, mappings merged key by key (YAML configs)."""
    out = dict(base)
    for key, value in more.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


@pytest.fixture(scope="module")
def jupyterbook1_site(tmp_path_factory, snippets, release):
    """Jupyter Book 1 (jupyter-book 1.0.4, its own Sphinx, in .cache/jupyter-book-1/) from the "sphinx"
    snippet's Jupyter Book parts: the book's own _config.yml with its _config.yml part's keys merged in; index.md with its
    MyST page part; the release in _extra/attention-live/."""
    assert JUPYTER_BOOK.exists(), f"Jupyter Book 1 is not installed at {JUPYTER_BOOK}: build.py installs tests/jupyter-book-1/ there"
    snippet = snippets["sphinx"]
    book = tmp_path_factory.mktemp("jupyter-book-1")
    copy_release(release, book / "_extra" / FOLDER)
    shutil.copy2(build.ROOT / "web" / "favicon.png", book / "favicon.png")  # no request for /favicon.ico
    own = {"title": "Course", "author": "A teacher", "execute": {"execute_notebooks": "off"}, "html": {"favicon": "favicon.png"},
           "sphinx": {"config": {"html_context": {"default_mode": "light"}}}}  # else the theme logs "invalid theme mode" as an error
    printed = yaml.safe_load(part(snippet, "_config.yml"))
    (book / "_config.yml").write_text(yaml.safe_dump(merged(own, printed)), encoding="utf-8")
    (book / "_toc.yml").write_text("format: jb-book\nroot: index\nchapters:\n  - file: other\n", encoding="utf-8")
    (book / "index.md").write_text("# Unit 3: attention\n\nHow each token of a sentence looks back at the earlier ones.\n\n"
                                   f"{part(snippet, 'unit.md')}\n\nThen go on to the [Other page](other.md).\n", encoding="utf-8")
    (book / "other.md").write_text("# Other page\n\nExercises. [Back to unit 3](index.md)\n", encoding="utf-8")
    generate([str(JUPYTER_BOOK), "build", "--warningiserror", "--quiet", str(book)], cwd=book)
    assert_has_release(book / "_build" / "html" / FOLDER, release)
    # Jupyter Book 1.0.4 writes sphinx-thebe's settings script twice on each page (its const declared
    # again: a page error), the page without the figure too
    thebe = 'const THEBE_JS_URL = "'
    assert all((book / "_build" / "html" / name).read_text(encoding="utf-8").count(thebe) == 2 for name in ("index.html", "other.html"))
    with serving(build.make_server(0, book / "_build" / "html")) as url:
        yield Site(url, "/index.html", "article", instant=False, own_errors=("page error: Identifier 'THEBE_JS_URL' has already been declared",))


@pytest.fixture(scope="module")
def docusaurus_site(tmp_path_factory, snippets, release):
    """Docusaurus (classic preset, docs at the root) from the "docusaurus" snippet: its config part
    written into the config object as printed, the element in docs/unit.mdx (the site's home page,
    ``slug: /``), the release in static/attention-live/."""
    assert DOCUSAURUS.is_dir(), f"Docusaurus is not installed at {DOCUSAURUS}: build.py installs tests/docusaurus-site/ there (npm ci)"
    snippet = snippets["docusaurus"]
    site = tmp_path_factory.mktemp("docusaurus")
    (site / "node_modules").symlink_to(DOCUSAURUS, target_is_directory=True)
    (site / "package.json").write_text('{"name": "course", "private": true}\n', encoding="utf-8")
    copy_release(release, site / "static" / FOLDER)
    shutil.copy2(build.ROOT / "web" / "favicon.png", site / "static" / "favicon.png")  # else the browser asks for /favicon.ico
    (site / "docs").mkdir()
    (site / "docs" / "unit.mdx").write_text(f"---\nslug: /\n---\n\n# Unit 3: attention\n\nHow each token of a sentence looks back at the earlier ones.\n\n"
                                            f"{part(snippet, 'docs/unit.mdx')}\n\nThen go on to the [Other page](other.md).\n", encoding="utf-8")
    (site / "docs" / "other.md").write_text("# Other page\n\nExercises.\n\n[Back to unit 3](unit.mdx)\n", encoding="utf-8")
    server = build.make_server(0, site / "build")
    (site / "docusaurus.config.js").write_text(
        f'export default {{\n  title: "Course",\n  favicon: "favicon.png",\n  url: "http://127.0.0.1:{server.server_address[1]}",\n  baseUrl: "/",\n'
        '  presets: [["classic", {docs: {routeBasePath: "/"}, blog: false, pages: false}]],\n'
        f"  {part(snippet, 'docusaurus.config.js')}\n}};\n", encoding="utf-8")
    generate(["node", str(DOCUSAURUS / "@docusaurus" / "core" / "bin" / "docusaurus.mjs"), "build"], cwd=site,
             env={"DOCUSAURUS_NO_PERSISTENT_CACHE": "1", "NO_UPDATE_NOTIFIER": "1", "CI": "true"})  # no webpack cache in the shared node_modules/.cache
    assert_has_release(site / "build" / FOLDER, release)
    with serving(server) as url:
        yield Site(url, "/", "article", instant=True)


def pandoc(markdown, cwd):
    """``markdown`` (Pandoc's Markdown, as Quarto reads a .qmd) as a standalone HTML page, by Debian's Pandoc."""
    assert os.path.exists(PANDOC), f"no pandoc at {PANDOC}: build.py installs Debian's pandoc with apt-get"
    done = subprocess.run([PANDOC, "-f", "markdown", "-t", "html5", "-s", "--metadata", "pagetitle=Course",
                           "--variable", 'header-includes=<link rel="icon" href="data:,">'],  # no request for /favicon.ico
                          input=markdown, cwd=cwd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def pandoc_site(tmp_path_factory, snippets, release):
    """Quarto's page part read by Pandoc into index.html (and other.html), beside the release in
    attention-live/ (where Quarto's resources: puts it in _site)."""
    snippet = snippets["quarto"]
    site = tmp_path_factory.mktemp("pandoc")
    copy_release(release, site / FOLDER)
    (site / "index.html").write_text(pandoc(f"# Unit 3: attention\n\nHow each token of a sentence looks back at the earlier ones.\n\n"
                                            f"{part(snippet, 'unit.qmd')}\n\nThen go on to the [Other page](other.html).\n", site), encoding="utf-8")
    (site / "other.html").write_text(pandoc("# Other page\n\nExercises.\n\n[Back to unit 3](index.html)\n", site), encoding="utf-8")
    with serving(build.make_server(0, site)) as url:
        yield Site(url, "/index.html", "body", instant=False)


def test_quarto_raw_block_keeps_the_element_out_of_a_paragraph(snippets, tmp_path):
    """Pandoc, as Quarto: the snippet's raw block gives the script and the element as they are, outside
    any <p>; the element's line alone, as Markdown, would be wrapped in one (why the snippet has the block)."""
    code = part(snippets["quarto"], "unit.qmd")
    (element,) = [line for line in code.split("\n") if line.startswith("<attention-live ")]
    body = pandoc(code, tmp_path).split("<body>")[1]
    assert re.fullmatch(r"\s*" + re.escape(code.split("\n")[1]) + r"\s*" + re.escape(element) + r"\s*</body>\s*</html>\s*", body), body
    assert "<p><attention-live" in pandoc(element, tmp_path)


def wait_live(page):
    """Wait, by signals, for the page's figure: its element defined (asking for .ready starts it), ready, and TEXT's attention shown."""
    page.wait_for_function("() => document.querySelector('attention-live')?.ready !== undefined", timeout=WAIT_MS)
    element = FigurePage(page, "attention-live")
    element.ready()
    element.wait_for(text=TEXT, ids=NOT_EMPTY, matrix=as_long_as("ids"))
    return element


def check_numbers(figure_page, figure, text=TEXT):
    """state() is the snippets' view (``text``, or None for the figure's default one: an iframe's) with
    CPython's numbers: ids, tokens, the whole matrix of its layer and head, and the selected query's
    row, within TOLERANCE."""
    state = figure_page.state()
    result = figure.analyse(state["text"])
    assert (state["ids"], state["tokens"]) == (result["ids"], result["labels"])
    if text is not None:
        assert (state["text"], state["layer"], state["head"], state["token"]) == (text, LAYER, HEAD, TOKEN)
    want = result["attention"][state["layer"] - 1, state["head"] - 1]
    assert float(np.max(np.abs(np.asarray(state["matrix"]) - want))) <= TOLERANCE
    assert float(np.max(np.abs(np.asarray(state["weights"]) - want[state["token"]]))) <= TOLERANCE


@contextlib.contextmanager
def site_tab(playwright, site, *origins):
    """A fresh Chromium at desktop width on the site's figure page; yields (page, watch). At the end: no
    page error, no console error, no request off the site's origin (and ``origins``)."""
    watch = Watch(site.url, *origins)
    with browser_context(playwright, viewport={"width": 1280, "height": 900}) as context:
        page = watch.page(watch.context(context).new_page())
        page.goto(site.url + site.figure_path)
        yield page, watch
    watch.errors = [error for error in watch.errors if error not in site.own_errors]
    watch.check()


def navigate_away_and_back(page, site, check):
    """To the other page by the site's link and back by its link, ``check()``; then back twice in history
    (to the other page, to the figure's), ``check()``. A marker set on the document survives exactly
    when the site swaps its pages in without reloading."""
    page.evaluate("() => { window.stayed = true; }")
    for link, heading in (("Other page", "Other page"), ("Back to unit 3", "Unit 3: attention")):
        page.locator(f"{site.content} a", has_text=link).first.click()
        page.locator(f"{site.content} h1", has_text=heading).wait_for(timeout=WAIT_MS)
    check()
    assert page.evaluate("() => window.stayed === true") == site.instant
    page.go_back()
    page.locator(f"{site.content} h1", has_text="Other page").wait_for(timeout=WAIT_MS)
    page.go_back()
    page.locator(f"{site.content} h1", has_text="Unit 3: attention").wait_for(timeout=WAIT_MS)
    check()


@pytest.mark.parametrize("generator", ["mkdocs", "sphinx", "jupyterbook1", "docusaurus", "pandoc"])
def test_the_element_snippet_goes_live_and_survives_navigation(playwright, request, generator, figure):
    """The generator's site, built from its snippet: the figure live with CPython's numbers, one figure
    on the page, and so again after the site's own navigation (links, then history)."""
    site = request.getfixturevalue(f"{generator}_site")

    def check():
        element = wait_live(page)
        assert page.locator("attention-live").count() == 1
        check_numbers(element, figure)

    with site_tab(playwright, site) as (page, watch):
        check()
        navigate_away_and_back(page, site, check)
        problems = [problem for problem in watch.problems if problem not in site.own_errors]
        assert problems == [], problems


def test_the_mkdocs_iframe_snippet_sizes_its_frame_through_navigation(playwright, mkdocs_frame_site, figure_host, figure):
    """MkDocs + Material with the figure from another site: the frame live with CPython's numbers, and
    as tall as the figure (nothing scrolls inside it), also after instant navigation and history."""
    site = mkdocs_frame_site

    def check():
        page.locator("article iframe.attention-live").scroll_into_view_if_needed()
        frame = page.locator("article iframe.attention-live").element_handle().content_frame()
        frame.wait_for_selector("html[data-state='ready']", state="attached", timeout=WAIT_MS)
        figure_page = FigurePage(frame)
        figure_page.wait_for(ids=NOT_EMPTY, matrix=as_long_as("ids"))
        check_numbers(figure_page, figure, text=None)
        page.wait_for_function("""() => {  // the frame as tall as its figure's content: nothing to scroll inside
            const frame = document.querySelector('article iframe.attention-live');
            return frame.style.height !== '' && Math.abs(parseFloat(frame.style.height) - frame.getBoundingClientRect().height) < 1
                && frame.getBoundingClientRect().height >= %d;
        }""" % 600, timeout=WAIT_MS)
        assert frame.evaluate("() => document.documentElement.scrollHeight <= innerHeight + 1"), "the frame scrolls inside"

    with site_tab(playwright, site, figure_host) as (page, watch):
        check()
        navigate_away_and_back(page, site, check)
        problems = [problem for problem in watch.problems if problem not in site.own_errors]
        assert problems == [], problems


@pytest.mark.parametrize("width, kind", [(800, "desktop"), (390, "phone")])
def test_the_heights_the_snippets_state_are_the_figures(playwright, figure_host, width, kind):
    """The heights snippets.js states (HEIGHTS: the figure as it opens, and with all five panels open)
    are those the figure's resize messages give in a frame that wide, live, within 2%."""
    stated = re.search(rf"{kind}: \{{ opening: (\d+),.* all: (\d+) \}}", (build.ROOT / "web" / "snippets" / "snippets.js").read_text(encoding="utf-8"))
    with browser_context(playwright, viewport={"width": 1280, "height": 900}) as context:
        page = context.new_page()
        page.goto(f"{figure_host}/heights.html")
        for fragment, want in (("", int(stated[1])), ("#panels=heads,matrix,math,next,stack", int(stated[2]))):
            page.evaluate("""([src, width]) => {  // a new frame each time: no message of the last one counts
                measured.height = null;
                const old = document.querySelector('iframe'), frame = old.cloneNode();
                Object.assign(frame.style, { width: `${width}px`, height: '300px' });
                frame.src = src;
                old.replaceWith(frame);
            }""", [f"{FOLDER}/index.html{fragment}", width])
            frame = page.locator("iframe").element_handle().content_frame()
            frame.wait_for_selector("html[data-state='ready']", state="attached", timeout=WAIT_MS)
            page.wait_for_function("() => measured.height !== null && performance.now() - measured.changed > 1500", timeout=WAIT_MS, polling=250)
            height = page.evaluate("measured.height")
            assert abs(height - want) <= 0.02 * want, f"{width} px wide, {fragment or 'as it opens'}: {height} px, snippets.js says {want}"
