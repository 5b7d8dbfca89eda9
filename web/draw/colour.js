/* The figure's one colour scale, shared by the chips, the heads grid, the matrix and the legend.
 *
 * A single-hue ramp in OKLCH (Ottosson's perceptual colour space, https://bottosson.github.io/posts/oklab/):
 * weight 0 is near-white, weight 1 a deep blue, and perceived lightness falls linearly with the
 * weight, so a darker cell always means more attention, for every colour-vision deficiency (only
 * lightness carries the order; hue is constant). Masked cells (keys after the query) are a neutral
 * grey, outside the ramp, never the colour of weight 0.
 *
 *   weight   0 ──────────────────────────────▶ 1
 *   OKLCH L  0.97                              0.36   (hue 258°, chroma as high as sRGB allows, ≤ 0.16)
 */

const STEPS = 256; // entries of the lookup table: weight w uses entry round(w * 255)
const HUE = (258 * Math.PI) / 180;
const LIGHTEST = 0.97;
const DARKEST = 0.36;
const MAX_CHROMA = 0.16;

/** rgb of masked cells (keys after the query): a grey of no hue, unlike every colour of the ramp. */
const MASKED_RGB = [196, 196, 196];

/** CSS colour of masked cells (the legend's swatch, the image export's). */
export const MASKED_CSS = `rgb(${MASKED_RGB.join(" ")})`;

function linearToByte(c) {
  const encoded = c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055;
  return Math.round(255 * Math.min(1, Math.max(0, encoded)));
}

/* OKLab (L, a, b) to linear sRGB (r, g, b), Ottosson's published matrices. */
function oklabToLinearSrgb(L, a, b) {
  const l = (L + 0.3963377774 * a + 0.2158037573 * b) ** 3;
  const m = (L - 0.1055613458 * a - 0.0638541728 * b) ** 3;
  const s = (L - 0.0894841775 * a - 1.291485548 * b) ** 3;
  return [
    4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
    -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
    -0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s,
  ];
}

function inGamut(rgb) {
  return rgb.every((c) => c >= -1e-4 && c <= 1 + 1e-4);
}

/* The ramp's colour at weight w: lightness from the ramp, chroma the largest in sRGB up to MAX_CHROMA. */
function rampColour(w, hue = HUE) {
  const L = LIGHTEST + (DARKEST - LIGHTEST) * w;
  const atChroma = (C) => oklabToLinearSrgb(L, C * Math.cos(hue), C * Math.sin(hue));
  let low = 0;
  let high = MAX_CHROMA * Math.min(1, 0.25 + w);
  if (!inGamut(atChroma(high))) {
    for (let i = 0; i < 20; i++) {
      const mid = (low + high) / 2;
      if (inGamut(atChroma(mid))) low = mid; else high = mid;
    }
    high = low;
  }
  return atChroma(high).map(linearToByte);
}

/* WCAG relative luminance of an sRGB byte triple. */
function luminance([r, g, b]) {
  const lin = (c) => { const x = c / 255; return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

const TABLE = Array.from({ length: STEPS }, (_, i) => rampColour(i / (STEPS - 1)));
// white text where it has a contrast of at least 4.5:1 with the colour (WCAG 2.1, 1.4.3)
const LIGHT_TEXT = TABLE.map((rgb) => 1.05 / (luminance(rgb) + 0.05) >= 4.5);

/* The table entry of a weight (probability; NaN and values outside 0..1 clamp). */
function step(weight) {
  return weight >= 1 ? STEPS - 1 : weight > 0 ? Math.round(weight * (STEPS - 1)) : 0;
}

const CSS = TABLE.map(([r, g, b]) => `rgb(${r} ${g} ${b})`);

/** CSS colour of a weight, for DOM elements (chips, legend). */
export function weightCss(weight) {
  return CSS[step(weight)];
}

let weightSheet = null; // one rule per step of the table, made on first use

/** The style sheet of the weight colours (a constructed CSSStyleSheet, one per page): each figure's
 *  tree, its document or its shadow root, adopts it (figure.js). */
export function weightColours() {
  if (!weightSheet) {
    weightSheet = new CSSStyleSheet();
    weightSheet.replaceSync(CSS.map((colour, i) => `.figure :is(.chip, .stack-cell).w${i} { background-color: ${colour}; }`).join("\n"));
  }
  return weightSheet;
}

/** The class that gives a chip (or a cell of "Attention stacked on attention") its weight's background colour: "w0" … "w255", one per step of the
 *  table (weightColours). A class, not an inline colour: chips of the same class share one computed
 *  style (Blink's matched-properties cache), where an inline colour restyles each chip from its rules
 *  on every keystroke (docs/benchmark.md). */
export function weightClass(weight) {
  return `w${step(weight)}`;
}

/** True where text on the weight's colour must be white: the colour is dark enough that white
 *  has a contrast of at least 4.5:1 with it (WCAG 2.1, 1.4.3); elsewhere black text has (at least 4.67:1
 *  wherever white has less than 4.5:1). */
export function needsLightText(weight) {
  return LIGHT_TEXT[step(weight)];
}

/* The ramp and the masked grey as packed RGBA words, in the byte order of ImageData (so one
 * 32-bit write sets a pixel's r, g, b and alpha). */
const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const pack = ([r, g, b]) => (littleEndian ? ((255 << 24) | (b << 16) | (g << 8) | r) : ((r << 24) | (g << 16) | (b << 8) | 255)) >>> 0;
const PACKED = Uint32Array.from(TABLE, pack);

/** The packed ImageData pixel of masked cells. */
export const MASKED_PIXEL = pack(MASKED_RGB);

/** The packed ImageData pixel of a weight (probability; NaN and values outside 0..1 clamp). */
export function weightPixel(weight) {
  return PACKED[step(weight)];
}

/* The diverging variant, for signed numbers (queries, keys, values): the same lightness ramp from
 * near-white at 0, blue for positive values and orange (hue 50°) for negative ones, so that the size
 * of a number reads as darkness in both directions. */
const NEGATIVE_HUE = (50 * Math.PI) / 180;
const NEGATIVE_PACKED = Uint32Array.from({ length: STEPS }, (_, i) => pack(rampColour(i / (STEPS - 1), NEGATIVE_HUE)));

/** The packed ImageData pixel of a signed number `value` on a scale from -limit to +limit (clamped). */
export function signedPixel(value, limit) {
  const t = limit > 0 ? value / limit : 0;
  return (t < 0 ? NEGATIVE_PACKED : PACKED)[step(Math.abs(t))];
}

/** The legend: a bar of the ramp from 0% to 100% and a swatch for masked keys, into `container`, in the
 *  words and numbers of `messages` (i18n/messages.js); drawn again after a change of language. */
export function drawLegend(container, messages) {
  const stops = Array.from({ length: 11 }, (_, i) => `${weightCss(i / 10)} ${i * 10}%`).join(", ");
  const bar = document.createElement("span");
  bar.className = "legend-bar";
  bar.style.backgroundImage = `linear-gradient(to right, ${stops})`; // not shown
  const masked = document.createElement("span");
  masked.className = "legend-masked";
  masked.style.backgroundColor = MASKED_CSS;
  const [lowest, highest] = [messages.percent(0, 0), messages.percent(1, 0)];
  const [low, high, maskedText] = [lowest, highest, messages.text("legend.masked")].map((text) => {
    const label = document.createElement("span");
    label.textContent = text;
    return label;
  });
  const maskedItem = document.createElement("span");
  maskedItem.className = "legend-item"; // the swatch and its words stay on one line
  maskedItem.append(masked, maskedText);
  container.replaceChildren(low, bar, high, maskedItem);
  container.setAttribute("role", "img");
  container.setAttribute("aria-label", messages.text("legend.name", { low: lowest, high: highest }));
}
