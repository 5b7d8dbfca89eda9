/* The snippets of embed.html: how to put the figure on each kind of course page, as each platform lets
 * its authors add a script (docs/embedding.md, "Each platform" explains the reasons). A snippet that
 * spans several files gives each file's part on its own, labelled with the file's name, to be pasted
 * into that file as it is (tests/test_snippet_sites.py builds real sites from them, verbatim).
 *
 * Snippets with the element assume the release unpacked into a folder `attention-live/` among the
 * course site's own files: the element needs the same origin (its worker is same-origin only).
 * Iframe snippets name the figure where embed.html is hosted now (`base`) and may be on another site.
 */

const TITLE = "Attention, live";
const TEXT = "Then the Queen turned to Alice and said";
const VIEW = { text: TEXT, layer: 2, head: 3, token: 8 }; // token 1-based, as in a link
/* The figure's height in CSS px, as its resize messages give it (the default sentence, live), for a
 * frame as wide as a desktop's column (800 px and wider: the figure is at most 52 em wide) and a
 * phone's (390 px); measured in Chromium, 2026-12-06. Where no script may resize the frame, its
 * snippet says which height shows which parts. */
export const HEIGHTS = {
  desktop: { opening: 803, heads: 1144, matrix: 1399, math: 1811, next: 1135, all: 3082 },
  phone: { opening: 1326, heads: 1696, matrix: 1744, math: 2752, next: 1909, all: 4122 },
};
const HEIGHT = HEIGHTS.desktop.opening; // a frame's height before the figure resizes it: the whole figure as it opens, on a desktop

/* HTML attribute values, escaped. */
function attribute(value) {
  return String(value).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

/* The element's markup, on one line, with the view of the snippets. */
const ELEMENT = `<attention-live text="${attribute(TEXT)}" layer="${VIEW.layer}" head="${VIEW.head}" token="${VIEW.token}"></attention-live>`;

/** An iframe of the standalone page at `base`, with `query` (e.g. "?lti=1") and the attributes every
 *  iframe snippet needs: a title (its accessible name), clipboard-write for "Copy link"; the class
 *  `attention-live` is what the resize script looks for. */
function iframe(base, query = "") {
  return `<iframe class="attention-live" src="${attribute(`${base}index.html${query}`)}" title="${TITLE}"\n`
    + `        width="100%" height="${HEIGHT}" style="border: 0" loading="lazy" allow="clipboard-write"></iframe>`;
}

/** The script that sizes every iframe.attention-live of the page to its figure (attention-live:resize
 *  messages from `figureOrigin`); it looks the frame up when a message comes, so it keeps working
 *  when a site swaps its pages in without reloading. */
function resizeScript(figureOrigin) {
  return "// the figure sends its content's height: its frame follows it (no scrolling inside)\n"
    + "addEventListener(\"message\", (event) => {\n"
    + `  if (event.origin !== "${figureOrigin}" || event.data?.type !== "attention-live:resize") return;\n`
    + "  for (const frame of document.querySelectorAll(\"iframe.attention-live\")) {\n"
    + "    if (frame.contentWindow === event.source) frame.style.height = `${event.data.height}px`;\n"
    + "  }\n"
    + "});";
}

const indent = (text, spaces) => text.split("\n").map((line) => " ".repeat(spaces) + line).join("\n");

/* Which height shows which parts, for a frame no script resizes. */
const HEIGHTS_SENTENCE = `Without resizing, a frame ${HEIGHTS.desktop.opening} px tall shows the whole figure as it opens at desktop width `
  + `(${HEIGHTS.phone.opening} px on a 390-px phone); opened, each panel needs: all heads ${HEIGHTS.desktop.heads} px `
  + `(phone ${HEIGHTS.phone.heads}), the whole matrix ${HEIGHTS.desktop.matrix} (${HEIGHTS.phone.matrix}), the math `
  + `${HEIGHTS.desktop.math} (${HEIGHTS.phone.math}), the next token ${HEIGHTS.desktop.next} (${HEIGHTS.phone.next}), `
  + `all four ${HEIGHTS.desktop.all} (${HEIGHTS.phone.all}); shorter, the reader scrolls inside the frame.`;

/** The snippets for a figure hosted at `base` (a URL ending in "/"), embedded in a course site at
 *  `courseOrigin` (the origin a cross-origin host page has, for embed-origin). Each: {name, title,
 *  where, parts: [{file, code}], preview}; `file` names the file the part goes into, `code` is what to
 *  paste, `preview` the HTML it becomes on the course page (shown live below it), or null. */
export function snippets(base, courseOrigin) {
  const figureOrigin = new URL(base).origin;
  const script = `<script type="module" src="${attribute(`${base}attention-live.js`)}"></script>`;
  const withOrigin = `?embed-origin=${encodeURIComponent(courseOrigin)}`;
  const pageScript = '<script type="module" src="attention-live/attention-live.js"></script>';
  return [
    {
      name: "element", title: "A page of the same site (plain HTML)",
      where: "In any HTML page of the site that hosts the figure's folder. Attributes, all optional: text, layer, head, token (1-based), panels (heads, matrix, math, next), as in a link.",
      parts: [{ file: "the page (HTML)", code: `${script}\n${ELEMENT}` }], preview: ELEMENT,
    },
    {
      name: "iframe", title: "An iframe on a page of another site, sized to the figure",
      where: "A course page on another origin that may hold a script. embed-origin is the course site's origin, which may receive the figure's state; the script resizes the frame to the figure's height.",
      parts: [{ file: "the page (HTML)", code: `${iframe(base, withOrigin)}\n<script>\n${indent(resizeScript(figureOrigin), 2)}\n</script>` }],
      preview: iframe(base, withOrigin),
    },
    {
      name: "mkdocs", title: "MkDocs (Material too)",
      where: "Unpack the release into docs/attention-live/ (MkDocs copies docs/ into the site). The script goes in extra_javascript as a module (MkDocs 1.5 or later), never in the page: Material's instant navigation re-creates a page's inline scripts without their type, and a module script then fails. Leave a blank line before and after the element.",
      parts: [
        { file: "mkdocs.yml", code: "extra_javascript:\n  - path: attention-live/attention-live.js\n    type: module" },
        { file: "docs/unit.md (any page)", code: ELEMENT },
      ],
      preview: null,
    },
    {
      name: "mkdocs-iframe", title: "MkDocs, the figure on another site",
      where: "The figure served from another site: an iframe in the page, and a script file beside it, listed in extra_javascript, that sizes the frame to the figure (it keeps working through Material's instant navigation).",
      parts: [
        { file: "mkdocs.yml", code: "extra_javascript:\n  - attention-live-frames.js" },
        { file: "docs/attention-live-frames.js", code: resizeScript(figureOrigin) },
        { file: "docs/unit.md (any page)", code: iframe(base) },
      ],
      preview: null,
    },
    {
      name: "quarto", title: "Quarto",
      where: "Unpack the release into attention-live/ beside _quarto.yml. The element goes in a raw HTML block (on a line of its own, Pandoc would wrap it in a paragraph), and resources: copies the folder into _site (Quarto copies only the files a page links to, not the worker, wheels and weights the figure fetches). Leave embed-resources off: it breaks module scripts and service workers. From a page in a sub-folder, write ../attention-live/.",
      parts: [
        { file: "_quarto.yml", code: "project:\n  resources:\n    - \"attention-live/**\"" },
        { file: "unit.qmd (any page)", code: `\`\`\`{=html}\n${pageScript}\n${ELEMENT}\n\`\`\`` },
      ],
      preview: null,
    },
    {
      name: "docusaurus", title: "Docusaurus",
      where: "Unpack the release into static/attention-live/. A <script> in a Markdown or MDX page never runs: the script goes in docusaurus.config.js's scripts (add the line to the config object; with a baseUrl other than /, put it in front of the path), and the element in the page.",
      parts: [
        { file: "docusaurus.config.js (in the config object)", code: "scripts: [{src: \"/attention-live/attention-live.js\", type: \"module\"}]," },
        { file: "docs/unit.mdx (any page)", code: ELEMENT },
      ],
      preview: null,
    },
    {
      name: "sphinx", title: "Sphinx and Jupyter Book 1",
      where: "Unpack the release into _extra/attention-live/ beside conf.py (or _config.yml): html_extra_path copies it into the site. The script and the element go in a raw HTML block; from a page in a sub-folder, write ../attention-live/.",
      parts: [
        { file: "conf.py (Sphinx)", code: "html_extra_path = [\"_extra\"]" },
        { file: "_config.yml (Jupyter Book 1, instead of conf.py)", code: "sphinx:\n  config:\n    html_extra_path: [\"_extra\"]" },
        { file: "unit.rst (a reStructuredText page)", code: `.. raw:: html\n\n${indent(`${pageScript}\n${ELEMENT}`, 3)}` },
        { file: "unit.md (a MyST page of Jupyter Book 1)", code: `\`\`\`{raw} html\n${pageScript}\n${ELEMENT}\n\`\`\`` },
      ],
      preview: null,
    },
    {
      name: "myst", title: "MyST (mystmd, Jupyter Book 2)",
      where: "Unpack the release into attention-live/ beside myst.yml (keep that name: widget.js, which MyST copies alone, finds the figure there); static_files (mystmd 1.10 or later) copies it whole into the site (with an earlier mystmd, which ignores it, copy attention-live/ into _build/html/ after myst build --html), and the {anywidget} directive puts the figure in the page, its view from the JSON body (token 1-based).",
      parts: [
        { file: "myst.yml", code: "project:\n  static_files:\n    - attention-live" },
        { file: "unit.md (any page)", code: `:::{anywidget} /attention-live/widget.js\n${JSON.stringify(VIEW)}\n:::` },
      ],
      preview: null,
    },
    {
      name: "moodle", title: "Moodle",
      where: `In a Page or an HTML block, in the editor's HTML source view (Moodle keeps the iframe for users with the trusted-content capability, and the script unless an administrator forces clean HTML). ${HEIGHTS_SENTENCE}`,
      parts: [{ file: "the page (HTML source view)", code: `${iframe(base)}\n<script>\n${indent(resizeScript(figureOrigin), 2)}\n</script>` }],
      preview: iframe(base),
    },
    {
      name: "canvas", title: "Canvas LMS",
      where: `In a Page, in the Rich Content Editor's HTML view (Canvas strips scripts and keeps iframes). lti=1 makes the figure send Canvas's lti.frameResize message, with which Canvas sizes the frame. ${HEIGHTS_SENTENCE}`,
      parts: [{ file: "the page (HTML view)", code: iframe(base, "?lti=1") }], preview: iframe(base, "?lti=1"),
    },
  ];
}
