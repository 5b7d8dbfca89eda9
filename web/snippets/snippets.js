/* The snippets of embed.html: how to put the figure on each kind of course page, as each platform lets
 * its authors add a script (docs/embedding.md, "Each platform" explains the reasons). A snippet that
 * spans several files gives each file's part on its own, labelled with the file's name, to be pasted
 * into that file as it is (tests/test_snippet_sites.py builds real sites from them, verbatim).
 *
 * Snippets with the element assume the release unpacked into a folder `attention-live/` among the
 * course site's own files: the element needs the same origin (its worker is same-origin only).
 * Iframe snippets name the figure where embed.html is hosted now (`base`) and may be on another site.
 *
 * Their words (titles, where each part goes, the files' labels, the frame's title, the script's comment)
 * are messages of the catalog ("snippets." keys), in the page's language; their code is as the platform
 * needs it, the same in every language.
 */

/* The text of the element's view: the model's input, an English sentence (it learned English), the
 * same in every language. */
const TEXT = "Then the Queen turned to Alice and said"; // not shown
const VIEW = { text: TEXT, layer: 2, head: 3, token: 8 }; // token 1-based, as in a link
/* The figure's height in CSS px, as its resize messages give it (the default sentence, live), for a
 * frame as wide as a desktop's column (800 px and wider: the figure is at most 52 em wide) and a
 * phone's (390 px), each panel open alone, and all five; measured in Chromium, 2026-12-07. Where no script may resize the frame, its
 * snippet says which height shows which parts. */
export const HEIGHTS = {
  desktop: { opening: 893, heads: 1235, matrix: 1489, math: 1901, next: 1225, stack: 1173, all: 3452 },
  phone: { opening: 1399, heads: 1769, matrix: 1817, math: 2825, next: 1982, stack: 1825, all: 4602 },
};
const HEIGHT = HEIGHTS.desktop.opening; // a frame's height before the figure resizes it: the whole figure as it opens, on a desktop

/* HTML attribute values, escaped. */
function attribute(value) {
  return String(value).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

/* The element's markup, on one line, with the view of the snippets. */
const ELEMENT = `<attention-live text="${attribute(TEXT)}" layer="${VIEW.layer}" head="${VIEW.head}" token="${VIEW.token}"></attention-live>`; // not shown

/** An iframe of the standalone page at `base`, with `query` (e.g. "?lti=1") and the attributes every
 *  iframe snippet needs: a title (its accessible name, `title`), clipboard-write for "Copy link"; the
 *  class `attention-live` is what the resize script looks for. */
function iframe(base, title, query = "") {
  return `<iframe class="attention-live" src="${attribute(`${base}index.html${query}`)}" title="${attribute(title)}"\n` // not shown
    + `        width="100%" height="${HEIGHT}" style="border: 0" loading="lazy" allow="clipboard-write"></iframe>`;
}

/** The script that sizes every iframe.attention-live of the page to its figure (attention-live:resize
 *  messages from `figureOrigin`); it looks the frame up when a message comes, so it keeps working
 *  when a site swaps its pages in without reloading. `comment`: its first line's words. */
function resizeScript(figureOrigin, comment) {
  return `// ${comment}\n`
    + "addEventListener(\"message\", (event) => {\n"
    + `  if (event.origin !== "${figureOrigin}" || event.data?.type !== "attention-live:resize") return;\n`
    + "  for (const frame of document.querySelectorAll(\"iframe.attention-live\")) {\n" // not shown
    + "    if (frame.contentWindow === event.source) frame.style.height = `${event.data.height}px`;\n"
    + "  }\n"
    + "});";
}

const indent = (text, spaces) => text.split("\n").map((line) => " ".repeat(spaces) + line).join("\n");

/* Which height shows which parts, for a frame no script resizes: the heights as numbers of px, without
 * thousands separators, as CSS writes them. */
function heightsSentence() {
  const px = (height) => ({ number: height, grouping: false });
  const { desktop, phone } = HEIGHTS;
  return { key: "snippets.heights", params: {
    opening: px(desktop.opening), phoneOpening: px(phone.opening), heads: px(desktop.heads), phoneHeads: px(phone.heads),
    matrix: px(desktop.matrix), phoneMatrix: px(phone.matrix), math: px(desktop.math), phoneMath: px(phone.math),
    next: px(desktop.next), phoneNext: px(phone.next), stack: px(desktop.stack), phoneStack: px(phone.stack),
    all: px(desktop.all), phoneAll: px(phone.all) } };
}

/** The snippets for a figure hosted at `base` (a URL ending in "/"), embedded in a course site at
 *  `courseOrigin` (the origin a cross-origin host page has, for embed-origin), their words from
 *  `written` (a message, {key, params} as lib/shown.js writes it, → its text in the page's language).
 *  Each: {name, title, where, parts: [{file, code}], preview}; `file` names the file the part goes into
 *  (its name first, then any words), `code` is what to paste, `preview` the HTML it becomes on the course
 *  page (shown live below it), or null. */
export function snippets(base, courseOrigin, written) {
  const text = (key, params) => written({ key, params });
  const figureOrigin = new URL(base).origin;
  const title = text("snippets.frameTitle");
  const resize = resizeScript(figureOrigin, text("snippets.resizeComment"));
  const script = `<script type="module" src="${attribute(`${base}attention-live.js`)}"></script>`; // not shown
  const withOrigin = `?embed-origin=${encodeURIComponent(courseOrigin)}`;
  const pageScript = '<script type="module" src="attention-live/attention-live.js"></script>'; // not shown
  const heights = written(heightsSentence());
  const anyPage = (file) => text("snippets.file.anyPage", { file });
  return [
    {
      name: "element", title: text("snippets.element.title"), where: text("snippets.element.where"),
      parts: [{ file: text("snippets.file.page"), code: `${script}\n${ELEMENT}` }], preview: ELEMENT,
    },
    {
      name: "iframe", title: text("snippets.iframe.title"), where: text("snippets.iframe.where"),
      parts: [{ file: text("snippets.file.page"), code: `${iframe(base, title, withOrigin)}\n<script>\n${indent(resize, 2)}\n</script>` }],
      preview: iframe(base, title, withOrigin),
    },
    {
      name: "mkdocs", title: text("snippets.mkdocs.title"), where: text("snippets.mkdocs.where"),
      parts: [
        { file: "mkdocs.yml", code: "extra_javascript:\n  - path: attention-live/attention-live.js\n    type: module" },
        { file: anyPage("docs/unit.md"), code: ELEMENT },
      ],
      preview: null,
    },
    {
      name: "mkdocs-iframe", title: text("snippets.mkdocsIframe.title"), where: text("snippets.mkdocsIframe.where"),
      parts: [
        { file: "mkdocs.yml", code: "extra_javascript:\n  - attention-live-frames.js" },
        { file: "docs/attention-live-frames.js", code: resize },
        { file: anyPage("docs/unit.md"), code: iframe(base, title) },
      ],
      preview: null,
    },
    {
      name: "quarto", title: text("snippets.quarto.title"), where: text("snippets.quarto.where"),
      parts: [
        { file: "_quarto.yml", code: "project:\n  resources:\n    - \"attention-live/**\"" },
        { file: anyPage("unit.qmd"), code: `\`\`\`{=html}\n${pageScript}\n${ELEMENT}\n\`\`\`` },
      ],
      preview: null,
    },
    {
      name: "docusaurus", title: text("snippets.docusaurus.title"), where: text("snippets.docusaurus.where"),
      parts: [
        { file: text("snippets.file.configObject", { file: "docusaurus.config.js" }), code: "scripts: [{src: \"/attention-live/attention-live.js\", type: \"module\"}]," },
        { file: anyPage("docs/unit.mdx"), code: ELEMENT },
      ],
      preview: null,
    },
    {
      name: "sphinx", title: text("snippets.sphinx.title"), where: text("snippets.sphinx.where"),
      parts: [
        { file: text("snippets.file.sphinxConfig", { file: "conf.py" }), code: "html_extra_path = [\"_extra\"]" },
        { file: text("snippets.file.jupyterBookConfig", { file: "_config.yml", instead: "conf.py" }), code: "sphinx:\n  config:\n    html_extra_path: [\"_extra\"]" },
        { file: text("snippets.file.rstPage", { file: "unit.rst" }), code: `.. raw:: html\n\n${indent(`${pageScript}\n${ELEMENT}`, 3)}` },
        { file: text("snippets.file.mystPage", { file: "unit.md" }), code: `\`\`\`{raw} html\n${pageScript}\n${ELEMENT}\n\`\`\`` },
      ],
      preview: null,
    },
    {
      name: "myst", title: text("snippets.myst.title"), where: text("snippets.myst.where", { directive: "{anywidget}" }),
      parts: [
        { file: "myst.yml", code: "project:\n  static_files:\n    - attention-live" },
        { file: anyPage("unit.md"), code: `:::{anywidget} /attention-live/widget.js\n${JSON.stringify(VIEW)}\n:::` },
      ],
      preview: null,
    },
    {
      name: "moodle", title: text("snippets.moodle.title"), where: text("snippets.moodle.where", { heights }),
      parts: [{ file: text("snippets.file.pageSourceView"), code: `${iframe(base, title)}\n<script>\n${indent(resize, 2)}\n</script>` }],
      preview: iframe(base, title),
    },
    {
      name: "canvas", title: text("snippets.canvas.title"), where: text("snippets.canvas.where", { heights }),
      parts: [{ file: text("snippets.file.pageHtmlView"), code: iframe(base, title, "?lti=1") }], preview: iframe(base, title, "?lti=1"),
    },
  ];
}
