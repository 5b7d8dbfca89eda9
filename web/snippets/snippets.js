/* The snippets of embed.html: how to put the figure on each kind of course page, with the attributes
 * and permissions each needs (docs/embedding.md explains them). Each snippet names the figure where
 * it is hosted now: `base`, the folder of embed.html and index.html (a URL ending in "/").
 */

const TITLE = "Attention, live";
const HEIGHT = 570; // CSS px: the opening view whole on a phone (docs/embedding.md)

/* HTML attribute values, escaped. */
function attribute(value) {
  return String(value).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

/** An iframe of the standalone page at `base`, with `query` (e.g. "?lti=1") and the attributes every
 *  iframe snippet needs: a title (its accessible name), clipboard-write for "Copy link". */
function iframe(base, query = "", extra = "") {
  return `<iframe src="${attribute(`${base}index.html${query}`)}" title="${TITLE}" width="100%" height="${HEIGHT}"\n`
    + `        style="border: 0" loading="lazy" allow="clipboard-write"${extra}></iframe>`;
}

/** The snippets for a figure hosted at `base`, embedded in a course site at `courseOrigin` (the
 *  origin a cross-origin host page has, for embed-origin). Each: {name, title, where, code, preview};
 *  `code` is what to paste, `preview` the HTML it becomes on the course page (shown live below it). */
export function snippets(base, courseOrigin) {
  const figureOrigin = new URL(base).origin;
  const element = `<script type="module" src="${attribute(`${base}attention-live.js`)}"></script>\n`
    + '<attention-live layer="2" head="3" token="8"></attention-live>';
  const autoHeight = `${iframe(base, `?embed-origin=${encodeURIComponent(courseOrigin)}`, ' class="attention-live"')}\n<script>\n`
    + "  // the figure sends its content's height: the frame follows it (no scrolling inside)\n"
    + "  addEventListener(\"message\", (event) => {\n"
    + `    if (event.origin !== "${figureOrigin}" || event.data?.type !== "attention-live:resize") return;\n`
    + "    for (const frame of document.querySelectorAll(\"iframe.attention-live\")) {\n"
    + "      if (frame.contentWindow === event.source) frame.style.height = `${event.data.height}px`;\n"
    + "    }\n"
    + "  });\n</script>";
  return [
    {
      name: "element", title: "A page of the same site (plain HTML)",
      where: "In any HTML page of the site that hosts the figure's folder. Attributes, all optional: text, layer, head, token (1-based), panels (heads, matrix, math, next), as in a link.",
      code: element, preview: element.split("\n")[1],
    },
    {
      name: "iframe", title: "An iframe on a page of another site, sized to the figure",
      where: "A course page on another origin. embed-origin is the course site's origin, which may receive the figure's state; the script resizes the frame to the figure's height.",
      code: autoHeight, preview: iframe(base, `?embed-origin=${encodeURIComponent(courseOrigin)}`, ' class="attention-live"'),
    },
    {
      name: "myst", title: "MyST Markdown and Jupyter Book",
      where: "In a MyST (mystmd, Jupyter Book 2) page; with Jupyter Book 1 (Sphinx), put the iframe of the next snippets in a raw HTML block.",
      code: `:::{iframe} ${base}index.html\n:width: 100%\n:::`, preview: iframe(base),
    },
    {
      name: "quarto", title: "Quarto",
      where: "In a .qmd page, as a raw HTML block.",
      code: `\`\`\`{=html}\n${iframe(base)}\n\`\`\``, preview: iframe(base),
    },
    {
      name: "mkdocs", title: "MkDocs",
      where: "In a Markdown page: MkDocs passes HTML blocks through as they are (leave a blank line before and after).",
      code: iframe(base), preview: iframe(base),
    },
    {
      name: "moodle", title: "Moodle",
      where: "In an HTML block or a Page, in the editor's HTML source view (Moodle keeps iframes for users with the trusted-content capability); or in H5P's Iframe Embedder, with this address as its Source URL and the height below.",
      code: `${iframe(base)}\n\nH5P Iframe Embedder: Source URL ${base}index.html, width 100%, height ${HEIGHT}px`, preview: iframe(base),
    },
    {
      name: "canvas", title: "Canvas LMS",
      where: "In a Page, in the Rich Content Editor's HTML view; lti=1 makes the figure send Canvas's lti.frameResize message, which resizes the frame.",
      code: iframe(base, "?lti=1"), preview: iframe(base, "?lti=1"),
    },
  ];
}
