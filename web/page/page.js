/* The standalone page (index.html): its one <attention-live standalone> element, whose parts the page
 * holds already, started with the pieces that belong to a page rather than to a figure: the view in
 * the address (page-link.js), window.attentionLive, the messages to a host page when the page is in
 * an iframe (host-messages.js), the offline copy (offline.js), and its language (docs/languages.md):
 * the one its link asks for (lang=, read with the link's other fields), else the model's own, else the
 * browser's first with a catalog, else English; the page's <html lang> and dir follow the figure's.
 */
import { AttentionLiveElement } from "../attention-live.js";
import { chooseLanguage } from "../i18n/language.js";
import { readEmbedOptions, startEmbedding } from "./host-messages.js";
import { keepForOffline } from "./offline.js";
import { keepLinkInAddress, viewInAddress } from "./page-link.js";

const root = document.documentElement;
const pageFolder = new URL("./", document.baseURI).href; // the folder of index.html and sw.js

function start() {
  if (window.attentionLive) return; // a second start on the same page is a no-op
  if (root.dataset.preflight === "failed") return; // preflight.js has said why the figure cannot run here
  const element = document.querySelector("attention-live[standalone]");
  if (!(element instanceof AttentionLiveElement)) return;
  const embedOptions = readEmbedOptions(location.search);
  let link = null;
  const figure = element.makeFigureOf(element.querySelector(".figure"), {
    stateElements: [root, element],
    initialView: viewInAddress,
    linkHref: () => { // the address holds the view, written first: the last change is in it
      link.writeNow();
      return location.href;
    },
    // the address's embed-origin values that are not origins (host-messages.js): said for as long as the page is
    // open, each a message of the catalog (lib/shown.js), written in the figure's language when shown
    notices: embedOptions.rejected.map((value) => ({ key: "page.embedOriginRejected", params: { value } })),
    // without a link's lang (figure.js asks once build.json has arrived): not asked by the course, so a
    // copied link does not carry it
    chooseLanguage: (available, model) => ({ lang: chooseLanguage([model, ...navigator.languages], available), asked: false, notice: null }),
  });
  link = keepLinkInAddress(figure);
  window.attentionLive = figure.api;
  const embedding = startEmbedding(figure.api, embedOptions);
  figure.onChange(() => embedding.changed());
  figure.onChange(() => { // the page declares the language its figure shows, and is named in it
    if (root.lang !== figure.language) root.lang = figure.language;
    if (root.dir !== figure.messages.dir) root.dir = figure.messages.dir;
    const title = figure.messages.text("markup.title");
    if (document.title !== title) document.title = title;
  });
  element.addEventListener("attention-live:guess", (event) => embedding.guess(event.detail));
  element.addEventListener("attention-live:ready", () => {
    embedding.ready();
    keepForOffline(figure.manifest, pageFolder);
  });
  figure.attempt();
}

start();
