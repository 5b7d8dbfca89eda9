/* Which language the figure speaks, its catalog, and its words in the figure's markup.
 *
 * The catalogs are web/i18n/<lang>.json (docs/languages.md); build.json lists their tags
 * ("languages"). English, the reference, comes with the script (en-catalog.js, made by build.py from
 * en.json); another language's catalog is fetched from the build's folder the first time a figure of
 * the page asks for it, and kept for the page's life (sw.js keeps it offline, as every build file).
 */
import ENGLISH from "./en-catalog.js";
import { Messages } from "./messages.js";

export const REFERENCE = "en";

/** English's Messages: the words before any catalog is chosen, and where a catalog cannot be had. */
export const english = new Messages(REFERENCE, ENGLISH);

/** The catalog's tag for the first of `asked` (language tags, best first; empty ones skipped) that has a
 *  catalog among `available` (build.json's "languages"): the tag itself when a catalog is named so
 *  ("pt-BR"), else its primary subtag ("de-CH" → "de"); case is ignored. null when none has one. */
export function chooseLanguage(asked, available) {
  const tags = new Map(available.map((tag) => [tag.toLowerCase(), tag]));
  for (const tag of asked) {
    if (typeof tag !== "string" || tag.trim() === "") continue;
    const lower = tag.trim().toLowerCase().replace(/_/g, "-");
    const found = tags.get(lower) ?? tags.get(lower.split("-")[0]);
    if (found) return found;
  }
  return null;
}

const catalogs = new Map(); // the catalog's URL → Promise of its Messages, once per page

/** The Messages of `lang` (a tag build.json lists), its catalog fetched from `folder` (the build's folder
 *  URL) the first time, or given by `source` ((lang) => Promise of the catalog: a notebook's kernel);
 *  English's at once. Rejects with an Error when the catalog cannot be had or read (the figure then
 *  keeps English and says so). */
export function loadMessages(lang, folder, source = null) {
  if (lang === REFERENCE) return Promise.resolve(english);
  const url = source ? `source:${lang}` : new URL(`i18n/${lang}.json`, folder).href;
  if (!catalogs.has(url)) {
    const fetched = source ? Promise.resolve().then(() => source(lang)) : fetch(url).then((response) => {
      if (!response.ok) throw new Error(`HTTP ${response.status}`); // not shown
      return response.json();
    });
    const loaded = fetched.then((catalog) => new Messages(lang, catalog, ENGLISH));
    loaded.catch(() => catalogs.delete(url)); // a later figure tries again
    catalogs.set(url, loaded);
  }
  return catalogs.get(url);
}

/** Write the words of `root`'s markup (the figure's, web/figure/figure.html) in `messages`' language:
 *  an element's `data-text` names the message of its content (its children with `data-slot="name"`
 *  are put where the message's {name} is), `data-label` that of its aria-label, `data-alt` its alt text;
 *  `root` declares the language and its direction (lang, dir). build.py writes English the same way
 *  into the built markup, so that the page reads right before any script runs. */
export function applyMessages(root, messages) {
  root.lang = messages.lang;
  root.dir = messages.dir;
  for (const node of root.querySelectorAll("[data-text]")) {
    const slots = Object.fromEntries([...node.querySelectorAll(":scope > [data-slot]")].map((slot) => [slot.dataset.slot, slot]));
    messages.fill(node, node.dataset.text, slots);
  }
  for (const node of root.querySelectorAll("[data-label]")) node.setAttribute("aria-label", messages.text(node.dataset.label));
  for (const node of root.querySelectorAll("[data-alt]")) node.setAttribute("alt", messages.text(node.dataset.alt));
}
