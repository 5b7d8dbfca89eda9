"""The release a course author drops in (issue 21): ``python3 build.py release`` from a copy of the
sources, its zip unpacked under a sub-path of a plain static server, and every snippet of its
embed.html, served where a course page would have it, going live."""

import zipfile

import pytest

import build
from support.figure_page import WAIT_MS, FigurePage, browser_context, check_view, serving
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
        assert {"attention-live.js", "index.html", "embed.html", "sw.js"} <= names
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


def embed_snippets(context, url):
    """embed.html's snippets: [{name, code, preview}] as the page shows them."""
    page = context.new_page()
    page.goto(url)
    snippets = page.evaluate("""() => [...document.querySelectorAll('[data-snippet]')].map((section) => ({
        name: section.dataset.snippet, code: section.querySelector('pre').textContent,
        preview: section.querySelector('.preview').innerHTML}))""")
    page.close()
    return snippets


def test_every_snippet_of_embed_html_goes_live(playwright, static_host, unpacked, tmp_path):
    """Each snippet as a course page has it: the element on a page of the same site, every iframe on
    a page of a second origin (its whole code where it is HTML, else the iframe it becomes)."""
    course = tmp_path / "course"
    course.mkdir()
    with browser_context(playwright) as context, serving(build.make_server(0, course)) as course_url:
        snippets = embed_snippets(context, f"{static_host}/{SUB_PATH}/embed.html")
        assert [s["name"] for s in snippets] == ["element", "iframe", "myst", "quarto", "mkdocs", "moodle", "canvas"]
        for snippet in snippets:
            assert f"{static_host}/{SUB_PATH}/" in snippet["code"], snippet["name"]  # names the figure where it is hosted
            html_code = snippet["code"] if snippet["name"] in ("element", "iframe", "mkdocs", "canvas") else snippet["preview"]
            page_html = f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{snippet["name"]}</title></head><body>{html_code}</body></html>'
            if snippet["name"] == "element":
                (unpacked / "element.html").write_text(page_html, encoding="utf-8")
                page = context.new_page()
                page.goto(f"{static_host}/element.html")
                element = FigurePage(page, "attention-live")
                element.ready()
                assert len(element.state()["tokens"]) > 0
            else:
                (course / f"{snippet['name']}.html").write_text(page_html, encoding="utf-8")
                page = context.new_page()
                page.goto(f"{course_url}/{snippet['name']}.html")
                page.locator("iframe").scroll_into_view_if_needed()
                frame = page.frames[1]
                frame.wait_for_selector("html[data-state='ready']", state="attached", timeout=WAIT_MS)
                assert len(FigurePage(frame).state()["tokens"]) > 0, snippet["name"]
                if snippet["name"] == "iframe":  # its script sizes the frame to the figure
                    page.wait_for_function("() => document.querySelector('iframe').style.height !== ''", timeout=WAIT_MS)
            page.close()
