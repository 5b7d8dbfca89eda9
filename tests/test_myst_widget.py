"""The figure in a MyST site through its {anywidget} directive (issue 43): dist/widget.js, as the
snippet that embed.html prints for MyST asks for it, built by the real MyST CLI and rendered by
MyST's renderer (replayed step by step, and its npm package itself).

What is real and what is replayed:

* the snippet: read from the served embed.html ([data-snippet="myst"]), as a course author copies it;
  its {anywidget} block is put on a page twice (as printed, then with another sentence in its JSON);
* the build: the MyST CLI (``mystmd`` 1.11.0, PyPI's wheel, pinned with its hash in
  tests/mystmd/requirements.txt, installed by build.py into .cache/mystmd/) runs ``myst build --site``
  on a project of that page and the snippet's myst.yml. It parses the directive (its
  body is JSON5: the model's state) and copies the module the node names (a local path, or a URL it
  downloads at build time) into the site's public folder under a hashed name, rewriting the node's
  ``esm``. Its ``--html`` step needs the site theme, a built web app that MyST downloads from GitHub (not
  on npm): the test lays out what that step writes instead, as mystmd's packages/myst-cli/src/build/
  html/index.ts does at commit 1ad857c61d787bfcfa02da2af88cff7a93c214e6: the public folder at
  ``/build/``, the project's static_files (the figure's folder, ``attention-live/``, where the CLI
  copied it: only a CLI that honours the snippet's static_files puts it there) at the root,
  and every local URL of an anywidget node (esm, css) under ``/build/`` (the theme's updateLink in
  static mode, packages/common/src/utils.ts of myst-theme, then rewriteAssetsFolder);
* the renderer: myst-theme's packages/anywidget (src/renderers.tsx and src/models.ts at commit
  6498c64bc64e0a061818a0dc88dd11d446334f79, the code of @myst-theme/anywidget 1.4.1), replayed step by
  step without React by tests/harness/myst-replay.js (its header lists the steps): the host <div>, the
  import, MyST's model (get, set and on; off, save_changes, send and widget_manager throw, and every
  attempt is recorded), initialize, the open shadow root and its <div>, render, and the cleanup when
  a node changes or unmounts. The third test runs MyST's own renderer instead, unreplayed: the npm
  package @myst-theme/anywidget 1.4.1 under React 19 (tests/myst-renderer/package-lock.json, installed
  by build.py into .cache/myst-renderer/), bundled with esbuild from tests/harness/myst-renderer.js.

What it proves, by signals (the figures' state(), the replay's records, the browser's workers): the
module MyST imports is its own copy (``/build/widget-<hash>.js``, away from the figure's folder: the
snippet names the module by its path in the project, which MyST copies), and from there it finds the
figure's build in the folder the snippet's myst.yml names; both figures live, with CPython's numbers;
both served by one Python (one shared worker, one runtime id); model.set moves a figure; a node's
cleanup removes its element and Python drops its view; a render after a cleanup works; none of the
throwing methods is called; the figure keeps its own look inside MyST's shadow root. The second test
imports the module from the figure's folder itself, so that a failure of the first says whether the
module or its place is at fault.
"""

import json
import os
import re
import subprocess

import pytest

import build
from support.figure_page import (NOT_EMPTY, WAIT_MS, FigurePage, Watch, browser_context, check_view, serving,
                                 worker_targets)

MYST = build.CACHE / "mystmd" / "mystmd_py" / "myst.cjs"  # tests/mystmd/requirements.txt, installed by build.py
HARNESS = build.ROOT / "tests" / "harness"
FOLDER = "attention-live"  # where the course author puts dist/ in the MyST project (its static_files)
SECOND_TEXT = "Alice was beginning to get very tired of sitting by her sister"
THIRD_TEXT = "The Queen shouted at the Hatter"

# An {anywidget} directive block: its fence (backticks or colons), argument (the module), options
# (":css: ..."), and body (JSON), up to the same fence.
DIRECTIVE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{anywidget\}[ \t]+(?P<arg>\S+)[ \t]*\n(?P<inside>.*?)^(?P=fence)[ \t]*$", re.M | re.S)
OPTION = re.compile(r"^:(?P<name>[\w-]+):[ \t]*(?P<value>.*)$")


def parse_directive(code):
    """The first {anywidget} block of ``code``: {block (as printed), fence, arg, options, model}, or None."""
    match = DIRECTIVE.search(code)
    if match is None:
        return None
    lines = match["inside"].split("\n")
    options = {}
    while lines and (option := OPTION.match(lines[0])):
        options[option["name"]] = option["value"]
        lines.pop(0)
    body = "\n".join(lines).strip()
    return {"block": match[0], "fence": match["fence"], "arg": match["arg"], "options": options,
            "model": json.loads(body) if body else {}}


def directive(parsed, model):
    """The block of ``parsed`` (parse_directive) with ``model`` as its JSON body."""
    options = "".join(f":{name}: {value}\n" for name, value in parsed["options"].items())
    return f"{parsed['fence']}{{anywidget}} {parsed['arg']}\n{options}{json.dumps(model)}\n{parsed['fence']}"


def printed_snippet(playwright, url):
    """embed.html's MyST snippet (the release's, served at /release/): its files ({name: text},
    from each <pre data-file>: myst.yml's lines, and the page's block), and its {anywidget} block parsed.
    Read in a browser of its own: embed.html's previews start a Python that is not the MyST page's."""
    with browser_context(playwright) as context:
        page = context.new_page()
        page.goto(f"{url}/release/embed.html")
        page.wait_for_selector("[data-snippet='myst'] pre", state="attached")
        files = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll("[data-snippet='myst'] pre")]
            .map((pre, i) => [pre.dataset.file ?? String(i), pre.textContent]))""")
    code = "\n".join(files.values())
    parsed = parse_directive(code)
    assert parsed is not None, f"no {{anywidget}} block in embed.html's MyST snippet: {files}"
    return {**parsed, "files": files}


def anywidget_nodes(tree):
    """The anywidget nodes of a page's mdast, in document order."""
    if isinstance(tree, dict):
        if tree.get("type") == "anywidget":
            return [tree]
        tree = list(tree.values())
    if isinstance(tree, list):
        return [node for child in tree for node in anywidget_nodes(child)]
    return []


def as_served(url):
    """A node's URL as a static MyST site serves it: myst-theme's updateLink (static mode) leaves an
    http(s) URL alone and puts a local one in the assets folder, which myst build --html rewrites to /build/."""
    if url is None or re.match(r"^https?:", url):
        return url
    return f"/build{url}"


def myst_build(project, site, snippet):
    """Build ``project`` (a MyST project whose page ``unit3.md`` holds the snippet's block twice) with
    the MyST CLI, and lay out what ``myst build --html`` writes into ``site``; returns the nodes as the
    page gets them (URLs as served) and the CLI's output."""
    assert MYST.exists(), f"the MyST CLI is not installed at {MYST}: build.py installs tests/mystmd/requirements.txt there"
    (project / FOLDER).symlink_to(build.DIST, target_is_directory=True)
    (project / "theme").mkdir()  # a site template with no web app: enough for --site (no theme server)
    (project / "theme" / "template.yml").write_text("jtex: v1\ntitle: No theme\nkind: site\n", encoding="utf-8")
    config = snippet["files"].get("myst.yml", "").strip()  # the snippet's lines of myst.yml, as printed
    version = "" if re.search(r"^version:", config, re.M) else "version: 1\n"
    (project / "myst.yml").write_text(f"{version}{config}\nsite:\n  template: ./theme\n", encoding="utf-8")
    second = directive(snippet, {**snippet["model"], "text": SECOND_TEXT, "layer": 1})
    (project / "unit3.md").write_text(f"# Unit 3: attention\n\n{snippet['block']}\n\nAnd another sentence:\n\n{second}\n", encoding="utf-8")
    result = subprocess.run(["node", str(MYST), "build", "--site"], cwd=project, capture_output=True, text=True, timeout=300,
                            env={**os.environ, "NO_UPDATE_NOTIFIER": "1", "CI": "true"})
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    content = json.loads((project / "_build" / "site" / "content" / "unit3.json").read_text(encoding="utf-8"))
    nodes = anywidget_nodes(content["mdast"])
    assert len(nodes) == 2, (nodes, output)
    public = project / "_build" / "site" / "public"
    (site / "build").symlink_to(public, target_is_directory=True)
    assert (public / FOLDER / "widget.js").exists(), f"MyST did not copy the project's static_files ({FOLDER}/): {output}"
    (site / FOLDER).symlink_to(public / FOLDER, target_is_directory=True)  # --html copies static_files to the site's root
    for node in nodes:
        node["esm"] = as_served(node["esm"])
        if node.get("css"):
            node["css"] = as_served(node["css"])
    return nodes, output


@pytest.fixture
def myst_site(tmp_path):
    """(site folder, origin): a static MyST site being laid out in ``site``, served, with the replay's
    script at /_harness/ (and, until myst_build lays it out, nothing else). embed.html is read from
    /release/ (dist/, as the author's copy of the release)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "release").symlink_to(build.DIST, target_is_directory=True)
    (site / "_harness").symlink_to(HARNESS, target_is_directory=True)
    with serving(build.make_server(0, site)) as url:
        yield site, url


def open_unit(context, site, url, nodes, watch, script="/_harness/myst-replay.js"):
    """The MyST page of ``nodes`` at /unit3/ (tests/harness/myst-replay.html, its renderer ``script``),
    opened until it leaves data-state="loading"."""
    (site / "unit3").mkdir()
    html = (HARNESS / "myst-replay.html").read_text(encoding="utf-8")
    (site / "unit3" / "index.html").write_text(html.replace("/_harness/myst-replay.js", script), encoding="utf-8")
    (site / "unit3" / "nodes.json").write_text(json.dumps(nodes), encoding="utf-8")
    page = watch.page(context.new_page())
    page.goto(f"{url}/unit3/")
    page.wait_for_selector("html:not([data-state='loading'])", state="attached", timeout=WAIT_MS)
    return page


def replay(page, figure, nodes):
    """Every check of the module on MyST's model, on the page of ``nodes`` (their renderer replayed)."""
    record = page.evaluate("() => ({ state: document.documentElement.dataset.state, errors: window.myst.errors,"
                           " mounts: window.myst.mounts.map((m) => ({ rendered: m.rendered, error: m.error, esm: m.node.esm })) })")
    assert record["state"] == "ready" and not record["errors"], record
    assert all(m["rendered"] for m in record["mounts"]), record
    first, second = (FigurePage(page, (f"#node-{i}", "attention-live")) for i in range(2))
    # both live, with the model's attributes (token 1-based in the model, 0-based in state()) and CPython's numbers
    for figure_page, node in zip((first, second), nodes):
        model = node["model"]
        figure_page.ready()
        figure_page.wait_for(text=model["text"], ids=NOT_EMPTY, weights=NOT_EMPTY)
        state = check_view(figure_page, figure)
        for name in ("layer", "head"):
            if name in model:
                assert state[name] == model[name], (name, state[name], model)
        if "token" in model:
            assert state["token"] == min(model["token"], len(state["ids"])) - 1, (state["token"], model)
    # one Python serves both: one runtime id, one shared worker, no other worker
    runtimes = [f.state()["runtime"] for f in (first, second)]
    assert runtimes[0]["id"] == runtimes[1]["id"] and runtimes[0]["kind"] == "shared", runtimes
    first.wait_for(runtime={"figures": 2})
    workers = worker_targets(page.context.browser)
    assert len(workers) == 1 and workers[0][0] == "shared_worker" and workers[0][1].endswith("/worker.js"), workers
    python = runtimes[0]["id"]
    # the figure's look inside MyST's shadow root: its own font, no upper-casing or spacing from the theme's prose
    looks = page.evaluate("""() => window.myst.mounts.map((m) => {
        const figure = m.el.querySelector('attention-live').shadowRoot;
        const row = getComputedStyle(figure.getElementById('tokens'));
        const root = getComputedStyle(figure.querySelector('.figure'));
        return { row: [row.fontFamily, row.textTransform, row.letterSpacing], root: root.fontFamily,
                 host: getComputedStyle(m.host).fontFamily };
    })""")
    for look in looks:
        assert look["host"].startswith("Georgia") and look["root"].startswith("system-ui"), look  # the theme's font stops at the figure
        assert look["row"] == [look["root"], "none", "normal"], look
    # model.set (MyST's: the state written, then "change:layer" and "change" dispatched) moves the figure
    page.evaluate("() => window.myst.set(0, 'layer', 1)")
    first.wait_for(layer=1)
    check_view(first, figure)
    page.evaluate(f"() => window.myst.set(1, 'text', {json.dumps(THIRD_TEXT)})")
    second.wait_for(text=THIRD_TEXT, ids=NOT_EMPTY)
    check_view(second, figure)
    # the second node unmounts: its cleanup runs, its element is gone, Python drops its view
    page.evaluate("() => { window.gone = window.myst.mounts[1].el.querySelector('attention-live'); return window.myst.unmount(1); }")
    unmounted = page.evaluate("""() => ({ cleanups: window.myst.mounts[1].cleanups, connected: window.gone.isConnected,
        left: window.myst.mounts[1].el.querySelectorAll('attention-live').length, attempts: window.myst.attempts, errors: window.myst.errors })""")
    assert unmounted == {"cleanups": 1, "connected": False, "left": 0, "attempts": [], "errors": []}, unmounted
    first.wait_for(runtime={"id": python, "figures": 1})
    # the first node changes (a new AST): its cleanup, then a new render into the same shadow root
    page.evaluate("() => { window.old = window.myst.mounts[0].el.querySelector('attention-live'); }")
    changed = {**nodes[0], "model": {**nodes[0]["model"], "text": SECOND_TEXT, "layer": 2}}
    page.evaluate("(node) => window.myst.change(0, node)", changed)
    rerendered = page.evaluate("""() => ({ cleanups: window.myst.mounts[0].cleanups, connected: window.old.isConnected,
        rendered: window.myst.mounts[0].rendered, figures: window.myst.mounts[0].host.shadowRoot.querySelectorAll('attention-live').length,
        attempts: window.myst.attempts, errors: window.myst.errors })""")
    assert rerendered == {"cleanups": 1, "connected": False, "rendered": True, "figures": 1, "attempts": [], "errors": []}, rerendered
    first.ready()
    first.wait_for(text=SECOND_TEXT, layer=2, ids=NOT_EMPTY, runtime={"id": python, "figures": 1})
    check_view(first, figure)
    # a new node after a cleanup: rendered, live, on the same Python
    page.evaluate("(node) => window.myst.mount(node)", {**nodes[1], "model": {"text": THIRD_TEXT, "head": 2}})
    third = FigurePage(page, ("#node-2", "attention-live"))
    third.ready()
    third.wait_for(text=THIRD_TEXT, head=2, ids=NOT_EMPTY, runtime={"id": python, "figures": 2})
    check_view(third, figure)
    # what MyST's model does not have was never called, and nothing failed
    final = page.evaluate("() => ({ attempts: window.myst.attempts, errors: window.myst.errors })")
    assert final == {"attempts": [], "errors": []}, final
    assert len(worker_targets(page.context.browser)) == 1


def printed_and_built(playwright, myst_site, tmp_path):
    """embed.html's MyST snippet as printed, built by the MyST CLI in a new project: (its page's
    anywidget nodes, the CLI's output)."""
    site, url = myst_site
    project = tmp_path / "project"
    project.mkdir()
    snippet = printed_snippet(playwright, url)
    print("embed.html's MyST snippet:", json.dumps(snippet["files"]))
    return myst_build(project, site, snippet)


def test_the_printed_snippet_built_by_myst_and_rendered_as_myst_renders_it(playwright, myst_site, tmp_path, figure):
    """The snippet as printed, built by the MyST CLI, its module imported from where MyST copied it."""
    site, url = myst_site
    watch = Watch(url)
    with browser_context(playwright, viewport={"width": 1200, "height": 2400}) as context:
        nodes, output = printed_and_built(playwright, myst_site, tmp_path)
        print("the page's nodes:", json.dumps(nodes))
        assert not re.search(r"Cannot find asset|Error saving asset", output), output  # MyST found (or downloaded) the module
        assert all(node["esm"].startswith("/build/") for node in nodes), nodes  # MyST's copy, not the figure's folder
        page = open_unit(context, site, url, nodes, watch)
        replay(page, figure, nodes)
    watch.check()


def test_the_module_on_myst_s_model_from_the_figure_s_folder(playwright, myst_site, tmp_path, figure):
    """The same nodes with the module imported from the figure's own folder (/attention-live/widget.js,
    not MyST's copy): the module's behaviour on MyST's model and renderer, apart from where MyST puts it."""
    site, url = myst_site
    watch = Watch(url)
    with browser_context(playwright, viewport={"width": 1200, "height": 2400}) as context:
        nodes, _ = printed_and_built(playwright, myst_site, tmp_path)
        for node in nodes:
            node["esm"] = f"/{FOLDER}/widget.js"
        page = open_unit(context, site, url, nodes, watch)
        replay(page, figure, nodes)
    watch.check()


RENDERER_MODULES = build.CACHE / "myst-renderer" / "node_modules"  # tests/myst-renderer/package-lock.json, installed by build.py
UNTIL_CLEANED = """(selector) => new Promise((resolve, reject) => {
    const deadline = performance.now() + WAIT_MS;
    const check = () => window.gone.parentNode === null ? resolve(true)
        : performance.now() > deadline ? reject(new Error("the cleanup did not take the element out of its <div>")) : setTimeout(check, 16);
    check();
})""".replace("WAIT_MS", str(WAIT_MS))  # until the element taken out of the page (window.gone) is out of MyST's <div> too


def bundle_renderer(site):
    """tests/harness/myst-renderer.js and what it imports (MyST's renderer, React), bundled by esbuild
    into the site as /_real/renderer.js."""
    assert RENDERER_MODULES.exists(), f"MyST's renderer is not installed at {RENDERER_MODULES}: build.py installs tests/myst-renderer/ there (npm ci)"
    result = subprocess.run([*build.esbuild_command(), str(HARNESS / "myst-renderer.js"), "--bundle", "--format=esm",
                             '--define:process.env.NODE_ENV="production"', f"--outfile={site / '_real' / 'renderer.js'}", "--log-level=warning"],
                            env={**os.environ, "NODE_PATH": str(RENDERER_MODULES)}, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_printed_snippet_rendered_by_myst_s_own_renderer(playwright, myst_site, tmp_path, figure):
    """The same page under MyST's own renderer (@myst-theme/anywidget under React, not a replay): the
    nodes drawn as the theme draws an article, a node taken out, a node changed, a node added."""
    site, url = myst_site
    project = tmp_path / "project"
    project.mkdir()
    snippet = printed_snippet(playwright, url)
    nodes, _ = myst_build(project, site, snippet)
    bundle_renderer(site)
    watch = Watch(url)
    with browser_context(playwright, viewport={"width": 1200, "height": 2400}) as context:
        page = open_unit(context, site, url, nodes, watch, script="/_real/renderer.js")
        assert page.evaluate("document.documentElement.dataset.state") == "ready"
        first, second = (FigurePage(page, (f"#node-{i} > div", "attention-live")) for i in range(2))
        for figure_page, node in zip((first, second), nodes):
            figure_page.wait_for_state("ready")
            figure_page.wait_for(text=node["model"]["text"], ids=NOT_EMPTY, weights=NOT_EMPTY)
            check_view(figure_page, figure)
        runtimes = [f.state()["runtime"] for f in (first, second)]
        assert runtimes[0]["id"] == runtimes[1]["id"] and runtimes[0]["kind"] == "shared", runtimes
        python = runtimes[0]["id"]
        first.wait_for(runtime={"figures": 2})
        assert len(worker_targets(context.browser)) == 1
        page.evaluate("() => window.myst.set(0, 'layer', 1)")
        first.wait_for(layer=1)
        check_view(first, figure)
        # the second node taken out of the article: React removes its host, then its effect's cleanup runs
        page.evaluate("() => { window.gone = document.querySelector('#node-1 > div').shadowRoot.querySelector('attention-live'); window.myst.unmount(1); }")
        page.evaluate(UNTIL_CLEANED)
        first.wait_for(runtime={"id": python, "figures": 1})
        # the first node changed: the cleanup, then a new render into the same shadow root
        page.evaluate("() => { window.gone = document.querySelector('#node-0 > div').shadowRoot.querySelector('attention-live'); }")
        page.evaluate("(node) => window.myst.change(0, node)", {**nodes[0], "model": {**nodes[0]["model"], "text": SECOND_TEXT}})
        page.evaluate(UNTIL_CLEANED)
        first.wait_for_state("ready")
        first.wait_for(text=SECOND_TEXT, ids=NOT_EMPTY, runtime={"id": python, "figures": 1})
        check_view(first, figure)
        # a node added after the cleanups
        page.evaluate("(node) => window.myst.mount(node)", {**nodes[1], "model": {"text": THIRD_TEXT, "head": 2}})
        third = FigurePage(page, ("#node-2 > div", "attention-live"))
        third.wait_for_state("ready")
        third.wait_for(text=THIRD_TEXT, head=2, ids=NOT_EMPTY, runtime={"id": python, "figures": 2})
        check_view(third, figure)
        assert page.evaluate("() => window.myst.attempts") == []
        assert len(worker_targets(context.browser)) == 1
    watch.check()
