"""The release a course author drops in (issue 21): ``python3 build.py release`` from a copy of the
sources, its zip unpacked under a sub-path of a plain static server, and every snippet of its
embed.html, served where a course page would have it, going live."""

import subprocess
import sys
import zipfile

import pytest

import build
from support.figure_page import WAIT_MS, FigurePage, browser_context, check_view, serving
from support.axe import violations
from support.snippets import embed_snippets
from support.source_tree import copy_sources, run_build

SUB_PATH = "x/y"


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory):
    """The release built from a copy of the sources and unpacked into ``site/x/y/``; returns ``site``."""
    project = copy_sources(tmp_path_factory.mktemp("release") / "project")
    run_build(project, command="release")
    (archive,) = project.glob("attention-live-*.zip")
    assert archive.name == f"attention-live-{build.read_pyproject()['project']['version']}.zip"
    site = project.parent / "site"
    with zipfile.ZipFile(archive) as release:
        names = set(release.namelist())
        assert {"attention-live.js", "widget.js", "index.html", "embed.html", "sw.js"} <= names
        release.extractall(site / SUB_PATH)
    return site


@pytest.fixture(scope="module")
def static_host(unpacked):
    """The unpacked release on a plain static server; yields its origin."""
    with serving(build.make_server(0, unpacked)) as url:
        yield url


def test_the_standalone_page_works_under_a_sub_path(playwright, static_host, figure):
    with browser_context(playwright) as context:
        page = FigurePage(context.new_page())
        page.open(f"{static_host}/{SUB_PATH}/index.html")
        page.set_text("Alice followed the White Rabbit")
        check_view(page, figure)


def test_the_element_works_on_a_page_of_the_site(playwright, static_host, unpacked, figure):
    (unpacked / "x" / "unit.html").write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Unit</title>'
        '<script type="module" src="y/attention-live.js"></script></head>'
        '<body><attention-live text="The Hatter said nothing" layer="1" head="2"></attention-live></body></html>', encoding="utf-8")
    with browser_context(playwright) as context:
        page = context.new_page()
        page.goto(f"{static_host}/x/unit.html")
        element = FigurePage(page, "attention-live")
        element.ready()
        state = element.state()
        assert (state["layer"], state["head"]) == (1, 2) and state["ids"] == figure.analyse("The Hatter said nothing")["ids"]


SNIPPETS = ["element", "iframe", "mkdocs", "mkdocs-iframe", "quarto", "docusaurus", "sphinx", "myst", "moodle", "canvas"]
HTML_SNIPPETS = ("element", "iframe", "moodle", "canvas")  # pasted into a page as they are; the generators' are built by test_snippet_sites.py
# Canvas's part of the Canvas snippet: a listener for the figure's lti.frameResize (Canvas resizes the frame on it)
CANVAS_STAND_IN = """<script>addEventListener("message", (event) => { if (event.data?.subject === "lti.frameResize") window.ltiHeight = event.data.height; });</script>"""


def test_every_snippet_of_embed_html_goes_live(playwright, static_host, unpacked, tmp_path):
    """embed.html's list of snippets, each naming the figure where it is hosted (iframes) or the folder
    its generator's site holds; each HTML snippet as a course page has it, its code pasted as printed:
    the element on a page of the same site, every iframe on a page of a second origin, live; the
    iframe's and Moodle's scripts size their frame to the figure, and the figure tells Canvas its height."""
    course = tmp_path / "course"
    course.mkdir()
    with browser_context(playwright) as context, serving(build.make_server(0, course)) as course_url:
        snippets = {s["name"]: s for s in embed_snippets(context, f"{static_host}/{SUB_PATH}/embed.html")}
        assert list(snippets) == SNIPPETS
        for name, snippet in snippets.items():
            code = "\n".join(snippet["parts"].values())
            hosted = f"{static_host}/{SUB_PATH}/" in code
            assert hosted if name in ("element", "iframe", "mkdocs-iframe", "moodle", "canvas") else "attention-live/" in code, name
        for name in HTML_SNIPPETS:
            (code,) = snippets[name]["parts"].values()
            page_html = (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{name}</title><link rel="icon" href="data:,">'
                         f'{CANVAS_STAND_IN if name == "canvas" else ""}</head><body>{code}</body></html>')
            if name == "element":
                (unpacked / "element.html").write_text(page_html, encoding="utf-8")
                page = context.new_page()
                page.goto(f"{static_host}/element.html")
                element = FigurePage(page, "attention-live")
                element.ready()
                assert len(element.state()["tokens"]) > 0
            else:
                (course / f"{name}.html").write_text(page_html, encoding="utf-8")
                page = context.new_page()
                page.goto(f"{course_url}/{name}.html")
                page.locator("iframe").scroll_into_view_if_needed()
                frame = page.locator("iframe").element_handle().content_frame()
                frame.wait_for_selector("html[data-state='ready']", state="attached", timeout=WAIT_MS)
                assert len(FigurePage(frame).state()["tokens"]) > 0, name
                if name == "canvas":
                    page.wait_for_function("() => window.ltiHeight > 500", timeout=WAIT_MS)
                else:  # the snippet's script: the frame as tall as its figure, nothing scrolls inside
                    page.wait_for_function("() => parseFloat(document.querySelector('iframe').style.height) > 500", timeout=WAIT_MS)
                    FigurePage(frame).wait_until("() => document.documentElement.scrollHeight <= innerHeight + 1")
            page.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_embed_html_names_each_part_copies_it_and_passes_axe(playwright, static_host, axe_source, scheme):
    """embed.html, as a course author uses it: no WCAG 2.1 A/AA violation (axe-core, previews live, in
    either colour scheme);
    every part's code box named by its snippet and file, reached by Tab; every Copy button named after
    what it copies, and Enter on one puts that part on the clipboard and says so."""
    with browser_context(playwright, viewport={"width": 1280, "height": 900}, color_scheme=scheme) as context:
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=static_host)
        page = context.new_page()
        page.goto(f"{static_host}/{SUB_PATH}/embed.html")
        page.wait_for_selector("[data-snippet] pre", state="attached")
        FigurePage(page, "attention-live").ready()
        assert violations(page, axe_source) == []
        boxes = page.evaluate("""() => [...document.querySelectorAll('[data-snippet] pre')].map((pre) => ({
            name: pre.getAttribute('aria-labelledby').split(' ').map((id) => document.getElementById(id).textContent).join(' '),
            tabIndex: pre.tabIndex, copy: pre.nextElementSibling.getAttribute('aria-label'), code: pre.textContent}))""")
        assert len(boxes) == page.locator("[data-snippet] > button").count() >= len(SNIPPETS)
        assert all(box["tabIndex"] == 0 for box in boxes)
        mkdocs = [box for box in boxes if box["name"] == "MkDocs (Material too) mkdocs.yml"]
        assert len(mkdocs) == 1 and mkdocs[0]["copy"] == "Copy mkdocs.yml for MkDocs (Material too)"
        button = page.get_by_role("button", name="Copy mkdocs.yml for MkDocs (Material too)")
        button.focus()
        page.keyboard.press("Shift+Tab")  # back to its code box, and forward again: both in the tab order
        assert page.evaluate("() => document.activeElement.tagName") == "PRE"
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        page.locator("#announcer", has_text="Copied mkdocs.yml for MkDocs (Material too).").wait_for(state="attached", timeout=WAIT_MS)
        assert page.evaluate("() => navigator.clipboard.readText()") == mkdocs[0]["code"]


def test_the_notebook_wheel_is_the_package_pip_builds(unpacked, tmp_path):
    """The release's notebook/ wheel (build.py writes it with zipfile) holds the same files, byte for
    byte, and the same requirements as the wheel pip builds from the same sources with setuptools
    (``pip install "./py[widget]"``'s): the widget, its bundled module and the shipped model."""
    (wheel,) = (unpacked / SUB_PATH / "notebook").glob("attention_live-*-py3-none-any.whl")
    project = unpacked.parent / "project"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", str(project / "py"), "-w", str(tmp_path)],
                   check=True, capture_output=True)
    (reference,) = tmp_path.glob("attention_live-*.whl")

    def contents(path):
        with zipfile.ZipFile(path) as archive:
            files = {name: archive.read(name) for name in archive.namelist() if ".dist-info/" not in name}
            metadata = archive.read(next(name for name in archive.namelist() if name.endswith(".dist-info/METADATA"))).decode()
        return files, sorted(line for line in metadata.splitlines() if line.startswith(("Requires-Dist", "Provides-Extra", "Name", "Version")))

    ours, theirs = contents(wheel), contents(reference)
    assert sorted(ours[0]) == sorted(theirs[0])
    assert "attention_live/widget/static/model/model.safetensors" in ours[0]
    assert [name for name in ours[0] if ours[0][name] != theirs[0][name]] == []
    assert ours[1] == theirs[1]
