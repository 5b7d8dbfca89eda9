/* A small SVG writer for the image export (export.js): elements as strings, text always escaped, text
 * widths measured with the generic font families the SVG names (so the layout matches what a browser
 * draws it with), heatmaps embedded as PNG data (never a request).
 */

const SVG_NS = "http://www.w3.org/2000/svg";
export const SANS = "sans-serif";
export const MONO = "monospace";

/* Characters XML 1.0 cannot hold (C0 controls but tab, line feed and carriage return; U+FFFE, U+FFFF;
 * lone surrogates): shown as U+FFFD, as the page shows a lone surrogate. */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `value` as XML character data or an attribute value. */
export function escape(value) {
  return String(value).replace(NOT_XML, "\uFFFD").replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

/** `<name attributes>children</name>`; attributes with an undefined or null value are left out. */
export function tag(name, attributes = {}, children = "") {
  const written = Object.entries(attributes).filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => ` ${k}="${escape(v)}"`).join("");
  return children === "" ? `<${name}${written}/>` : `<${name}${written}>${children}</${name}>`;
}

/** A text element: `text` at (x, y) (y is the baseline), `size` px of `family`, and more attributes. */
export function text(x, y, value, { size = 13, family = SANS, ...rest } = {}) {
  return tag("text", { x, y, "font-size": size, "font-family": family, "xml:space": "preserve", ...rest }, escape(value));
}

const context = document.createElement("canvas").getContext("2d");

/** Width in CSS px of `value` in `size` px of `family` (a generic family, as the SVG names it). */
export function measure(value, size = 13, family = SANS, weight = "normal") {
  context.font = `${weight} ${size}px ${family}`;
  return context.measureText(value).width;
}

/** Break `value` into lines no wider than `width` CSS px (at spaces; a longer word stays whole). */
export function wrap(value, width, size = 13, family = SANS) {
  const lines = [];
  let line = "";
  for (const word of value.split(" ")) {
    const candidate = line === "" ? word : `${line} ${word}`;
    if (line !== "" && measure(candidate, size, family) > width) {
      lines.push(line);
      line = word;
    } else {
      line = candidate;
    }
  }
  return [...lines, line];
}

/** An <image> of `canvas` (one pixel per cell) filling x, y, width × height, each cell a crisp block:
 *  the pixels are scaled up by a whole number here (at least twice the CSS size, for a PNG at twice
 *  the size), so no viewer can smooth them. */
export function pixelImage(canvas, x, y, width, height) {
  const factor = Math.max(1, Math.ceil((2 * Math.max(width / canvas.width, height / canvas.height))));
  const big = document.createElement("canvas");
  big.width = canvas.width * factor;
  big.height = canvas.height * factor;
  const draw = big.getContext("2d");
  draw.imageSmoothingEnabled = false;
  draw.drawImage(canvas, 0, 0, big.width, big.height);
  return tag("image", { x, y, width, height, href: big.toDataURL("image/png"), preserveAspectRatio: "none", style: "image-rendering: pixelated" });
}

/** The whole SVG document, `width` × `height` CSS px, with a title and a description (its text
 *  alternative) and `body`. */
export function svgDocument(width, height, title, description, defs, body) {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${tag("svg", { xmlns: SVG_NS, width, height, viewBox: `0 0 ${width} ${height}`, role: "img" }, // not shown
    `${tag("title", {}, escape(title))}${tag("desc", {}, escape(description))}${tag("defs", {}, defs)}${tag("rect", { width, height, fill: "#fff" })}${body}`)}\n`;
}
