/* embed.html: the snippets for each kind of course page (snippets.js), each with a Copy button
 * and a live preview of what it becomes on the page, for the figure where this page is hosted.
 *
 * The page's words are messages of the catalog (web/i18n/<lang>.json: "embed." and "snippets." keys),
 * in a language of its own: the one its address asks for (?lang= or #lang=), else the browser's first
 * with a catalog (build.json's "languages"), else the page's own (<html lang>), else English. The
 * markup's elements name their messages (data-text, data-label), as the figure's do (i18n/language.js
 * applyMessages, which also sets the page's lang and dir): written in English at once (English comes
 * with the script), then, with the snippets, in the language chosen once build.json (and its catalog)
 * has arrived, so that the previews' figures start once.
 */
import "../attention-live.js";
import { applyMessages, chooseLanguage, english, loadMessages } from "../i18n/language.js";
import { shown } from "../lib/shown.js";
import { fetchManifest } from "../runtime/manifest.js";
import { snippets } from "./snippets.js";

const base = new URL("./", document.baseURI).href; // the folder of embed.html and index.html
const buildFolder = new URL("./", import.meta.url).href; // this build's files: build.json, the catalogs
const list = document.getElementById("snippets");
const originBox = document.getElementById("course-origin");
const announcer = document.getElementById("announcer");
const pageLanguage = document.documentElement.lang; // the page's own, before applyMessages sets it
let messages = english; // the words of the page's language

const text = (key, params) => messages.text(key, params);

/* One section per snippet: its title, where it goes, each file's part (its file's name, the code,
 * Copy), and the preview where the snippet has one. */
function draw() {
  const origin = originBox.checkValidity() && originBox.value ? new URL(originBox.value).origin : "https://course.example.edu";
  list.replaceChildren(...snippets(base, origin, (what) => shown(messages, what)).map((snippet) => {
    const section = document.createElement("section");
    section.className = "snippet";
    section.dataset.snippet = snippet.name;
    const title = document.createElement("h2");
    title.id = `snippet-${snippet.name}`;
    title.textContent = snippet.title;
    const where = document.createElement("p");
    where.textContent = snippet.where;
    section.append(title, where);
    snippet.parts.forEach((part, index) => {
      const file = document.createElement("h3");
      file.id = `snippet-${snippet.name}-${index}`;
      file.className = "file";
      file.textContent = part.file;
      const code = document.createElement("pre");
      code.tabIndex = 0; // a scrolling box is reached by keyboard
      code.dataset.file = part.file;
      code.setAttribute("aria-labelledby", `${title.id} ${file.id}`);
      code.textContent = part.code;
      const copy = document.createElement("button");
      copy.type = "button";
      copy.textContent = text("snippets.copy");
      const one = snippet.parts.length === 1; // the part is the whole snippet
      const params = { file: part.file, title: snippet.title };
      copy.setAttribute("aria-label", text(one ? "snippets.copyLabel" : "snippets.copyFileLabel", params));
      copy.addEventListener("click", () => copyText(part.code, one, params, code));
      section.append(file, code, copy);
    });
    if (snippet.preview !== null) {
      const preview = document.createElement("div");
      preview.className = "preview";
      preview.setAttribute("role", "region");
      preview.setAttribute("aria-label", text("snippets.preview", { title: snippet.title }));
      preview.innerHTML = snippet.preview; // our own markup (snippets.js), with this page's address in it
      section.append(preview);
    }
    return section;
  }));
}

/* Copies `text` (one: the whole snippet, else one file's part of it: params {file, title}, for the
 * announcement). */
async function copyText(code, one, params, box) {
  try {
    await navigator.clipboard.writeText(code);
    announcer.textContent = text(one ? "snippets.copied" : "snippets.copiedFile", params);
  } catch {
    getSelection().selectAllChildren(box); // where the clipboard is refused: selected, to copy by hand
    announcer.textContent = text(one ? "snippets.copyRefused" : "snippets.copyRefusedFile", params);
  }
}

/* The page in the language of `next` (a Messages): its markup's words and the snippets. */
function useMessages(next) {
  messages = next;
  applyMessages(document.documentElement, messages);
  draw();
}

/* The Messages of the language the page asks for (its address's lang, the browser's, the page's own),
 * among those with a catalog; English's where none has one. Rejects where build.json or the catalog
 * cannot be had. */
async function ownMessages() {
  const address = [new URLSearchParams(location.search).get("lang"), new URLSearchParams(location.hash.slice(1)).get("lang")];
  const { languages = [] } = await fetchManifest(buildFolder);
  const lang = chooseLanguage([...address, ...navigator.languages, pageLanguage], languages);
  return lang === null ? english : loadMessages(lang, buildFolder);
}

/* The previews' iframes follow their figure's height, as the iframe snippet's script does. */
addEventListener("message", (event) => {
  if (event.origin !== location.origin || event.data?.type !== "attention-live:resize") return;
  for (const frame of list.querySelectorAll("iframe")) {
    if (frame.contentWindow === event.source) frame.style.height = `${event.data.height}px`;
  }
});
originBox.addEventListener("change", draw);
applyMessages(document.documentElement, english); // the markup's words at once
ownMessages().catch(() => english).then(useMessages); // English where build.json or the catalog cannot be had
