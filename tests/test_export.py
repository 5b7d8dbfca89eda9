"""Export and print (issue 12, parts 3 and 4): attentionLive.exportImage writes what the figure shows
as an SVG (labels as <text> in generic font families, nothing fetched) or a PNG at twice the CSS
size; the Save buttons download it under a name with a slug of the text; printing gives one portrait
page with the figure, its colours kept and its controls hidden. Numbers checked against CPython's
Figure; the browser's own XML parser and image decoder read the files."""

import base64
import re
import struct
import xml.etree.ElementTree as ET

import pytest

from support.figure_page import EXPORTED_IMAGE, check_view

SVG = "{http://www.w3.org/2000/svg}"
TEXT = "Alice was beginning to get very tired of sitting by her sister"


def exported(figure_page, fmt):
    """attentionLive.exportImage({format}) read back: (name, type, bytes)."""
    data = figure_page.page.evaluate(EXPORTED_IMAGE, fmt)
    return data["name"], data["type"], base64.b64decode(data["base64"])


def texts(svg_bytes):
    """Every <text> of an SVG, parsed: [(text, font-family, attributes)]."""
    root = ET.fromstring(svg_bytes)
    return root, [(node.text or "", node.get("font-family"), node.attrib) for node in root.iter(f"{SVG}text")]


@pytest.fixture(scope="module")
def page(browser_page):
    figure_page = browser_page
    figure_page.set_text(TEXT)
    figure_page.select(layer=1, head=2, token=6)
    return figure_page


def test_the_svg_holds_every_token_its_weight_and_a_caption(page, figure):
    state = check_view(page, figure)
    name, kind, data = exported(page, "svg")
    assert kind == "image/svg+xml" and name == "attention-live-alice-was-beginning-to-get-very-tired-of-l1h2.svg"
    root, found = texts(data)
    words = [t for t, _, _ in found]
    assert words[0] == f"Attention, live · 2-layer toy GPT · layer 1, head 2 · query «{state['tokens'][6]}» (token 7 of {len(state['ids'])})"
    # each chip: its label, and its percentage as CPython computes it (none for masked keys)
    row = figure.analyse(TEXT)["attention"][0, 1, 6]
    chip_labels = words[1:words.index("0%")]
    expected = []
    for j, label in enumerate(state["tokens"]):
        expected += [label, f"{row[j] * 100:.1f}%"] if j <= 6 else [label]
    assert chip_labels == expected
    # generic font families only, and nothing to fetch: every image is PNG data inside the file
    assert {family for _, family, _ in found} == {"sans-serif", "monospace"}
    hrefs = [node.get("href") for node in root.iter(f"{SVG}image")]
    assert all(href.startswith("data:image/png;base64,") for href in hrefs)
    assert not re.search(rb"url\((?!#)|https?://(?!www\.w3\.org/2000/svg)", data)
    assert root.find(f"{SVG}title").text == "Attention, live: layer 1, head 2"


def test_open_panels_are_exported_with_their_numbers(page, figure):
    for name in ["heads", "matrix", "math", "next"]:
        page.open_panel(name)
    page.wait_for_panels("math", "next")
    state = page.state()
    figure.analyse(TEXT)
    explained = figure.explain(1, 2, 6)
    predicted = figure.predict(6)
    _, _, data = exported(page, "svg")
    root, found = texts(data)
    words = [t for t, _, _ in found]
    for title in ["All heads at once", "This head's whole attention matrix", "Show the math", "The next token"]:
        assert title in words
    assert sum(w.startswith("layer ") and " · head " in w for w in words) == 8  # the grid's captions
    assert len(list(root.iter(f"{SVG}image"))) == 8 + 1 + 4  # heatmaps: the grid, the matrix; strips q, k, v, output
    for j, label in enumerate(state["tokens"]):  # the math table: one row per key, CPython's numbers
        weight = f"{explained['weights'][j] * 100:.1f}%" if j <= 6 else "→ 0%"
        i = words.index(f"«{label}»" + (" (query)" if j == 6 else ""), words.index("key token"))
        assert words[i + 3] == weight
    for k, candidate in enumerate(predicted["candidates"]):
        assert words[words.index(f"{k + 1}. «{candidate['label']}»") + 1] == f"{candidate['p'] * 100:.1f}%"
    for name in ["heads", "matrix", "math", "next"]:
        page.open_panel(name, False)


def test_the_png_is_twice_the_svg_and_drawn(page):
    root, _ = texts(exported(page, "svg")[2])
    name, kind, data = exported(page, "png")
    assert kind == "image/png" and name.endswith("-l1h2.png")
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (2 * int(root.get("width")), 2 * int(root.get("height")))
    colours = page.page.evaluate("""async b64 => {
        const bitmap = await createImageBitmap(new Blob([Uint8Array.from(atob(b64), c => c.charCodeAt(0))], { type: "image/png" }));
        const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
        const context = canvas.getContext("2d");
        context.drawImage(bitmap, 0, 0);
        const pixels = new Uint32Array(context.getImageData(0, 0, bitmap.width, bitmap.height).data.buffer);
        return new Set(pixels).size;
    }""", base64.b64encode(data).decode())
    assert colours > 50  # text and the colour scale, not a blank page


def test_the_save_buttons_download_the_image(page):
    for fmt in ["png", "svg"]:
        with page.page.expect_download() as download:
            page.page.locator(f"#save-{fmt}").click()
        assert download.value.suggested_filename == f"attention-live-alice-was-beginning-to-get-very-tired-of-l1h2.{fmt}"
        assert "Saved" in page.status()


def test_bad_export_calls_are_refused(page):
    errors = page.page.evaluate("""() => Promise.all([{ format: 'gif' }, 'svg', null, 0].map(
        (options) => window.attentionLive.exportImage(options).then(() => null, (e) => `${e.name}: ${e.message}`)))""")
    assert errors == ['TypeError: format must be "svg" or "png", got "gif"', 'TypeError: exportImage takes {format: "svg" | "png"}, got "svg"',
                      'TypeError: exportImage takes {format: "svg" | "png"}, got null', 'TypeError: exportImage takes {format: "svg" | "png"}, got 0']


def test_a_phone_exports_everything_inside_the_image(browser_page, origin):
    figure_page = browser_page
    page = figure_page.page
    page.set_viewport_size({"width": 320, "height": 700})
    try:
        figure_page.set_text("Alice was beginning to get very tired of sitting by her sister on the bank, " * 6)
        for name in ["heads", "matrix", "math", "next"]:
            figure_page.open_panel(name)
        figure_page.wait_for_panel("next")
        root, _ = texts(exported(figure_page, "svg")[2])
        width = float(root.get("width"))
        for node in root.iter():
            if node.tag in (f"{SVG}rect", f"{SVG}image") and node.get("x") is not None:
                x, w = float(node.get("x")), float(node.get("width"))
                assert w >= 0 and 0 <= x and x + w <= width, (node.tag, node.attrib.get("href", "")[:0], x, w, width)
            if node.tag == f"{SVG}text" and node.get("transform") is None:
                assert 0 <= float(node.get("x")) <= width
        for name in ["heads", "matrix", "math", "next"]:
            figure_page.open_panel(name, False)
    finally:
        page.set_viewport_size({"width": 1280, "height": 720})


def test_printing_gives_one_page_with_the_figure(page):
    page.set_text(TEXT)
    for paper in ["A4", "Letter"]:
        pdf = page.page.pdf(format=paper)
        assert len(re.findall(rb"/Type\s*/Page\b", pdf)) == 1, paper
    page.page.emulate_media(media="print")
    try:
        looks = page.page.evaluate("""() => ({
            adjust: getComputedStyle(document.querySelector(".figure")).printColorAdjust,
            buttons: [...document.querySelectorAll(".controls button, #retry")].filter(b => b.checkVisibility()).length,
            textBorder: getComputedStyle(document.getElementById("text")).borderTopStyle,
            chips: [...document.querySelectorAll(".chip")].filter(c => c.checkVisibility()).length,
            query: getComputedStyle(document.querySelector(".chip.query")).outlineStyle,
            strong: getComputedStyle(document.querySelector(".chip[data-weight]")).backgroundColor,
        })""")
    finally:
        page.page.emulate_media(media="screen")
    assert looks["adjust"] == "exact" and looks["buttons"] == 0 and looks["textBorder"] == "none"
    assert looks["chips"] == len(page.state()["ids"]) and looks["query"] == "solid"
    assert looks["strong"] not in ("rgba(0, 0, 0, 0)", "transparent")


def test_hostile_text_exports_as_well_formed_svg(page, figure):
    hostile = 'a\u0000b & <c> "d" \U0001f44d\u200d'
    page.set_text(hostile)
    state = check_view(page, figure)
    name, _, data = exported(page, "svg")
    assert name.startswith("attention-live-a-b-c-d-")
    _, found = texts(data)  # parses: markup and control characters were escaped
    words = [t for t, _, _ in found]
    assert all(label in words for label in state["tokens"])
    page.set_text("")
    name, _, data = exported(page, "svg")
    assert name.startswith("attention-live-text-") and "No tokens." in [t for t, _, _ in texts(data)[1]]
