/* The standalone page's link: its figure's view in the address's fragment (url-state.js), read at
 * start and on every same-document navigation, written back as the view changes. */
import { asInBox } from "../figure/text-box.js";
import { readLink } from "../figure/url-state.js";
import { PAUSE_MS } from "../lib/when-paused.js";

/* A reload right after a change reloads the address the browser had when the reload began, which may
 * be older than the page's last writes (the timer's, pagehide's: the browser learns of each a moment
 * later). So each write is also kept in the tab's sessionStorage for PENDING_LINK_MS, keyed by the
 * address it replaced and by this document's id; a page that starts at such an address with that id
 * follows the chain of writes from it to the last (takePendingLink). The id lives in the document's
 * entry of the session history (history.state), which a reload keeps: a second frame of the same
 * address on a course page, or the same address opened by the next course page in the tab, has
 * another id and never takes this figure's text. */
const PENDING_LINK = "attention-live pending link "; // not shown
const PENDING_LINK_MS = 10000;
const ID_IN_STATE = "attentionLiveId";

/* This document's id (16 random bytes in hex), written into its session-history entry when it has
 * none; null where the history refuses it. */
function documentId() {
  try {
    const state = history.state !== null && typeof history.state === "object" ? history.state : {};
    if (typeof state[ID_IN_STATE] === "string") return state[ID_IN_STATE];
    const id = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
    history.replaceState({ ...state, [ID_IN_STATE]: id }, "");
    return id;
  } catch {
    return null;
  }
}

const pendingKey = (id, href) => `${PENDING_LINK}${id} from ${href}`; // not shown

function keepPendingLink(from) {
  try {
    const id = documentId();
    if (id === null) return;
    const now = Date.now();
    for (let i = sessionStorage.length - 1; i >= 0; i--) { // entries older than PENDING_LINK_MS go
      const key = sessionStorage.key(i);
      if (key?.startsWith(PENDING_LINK) && !(now - JSON.parse(sessionStorage.getItem(key)).at < PENDING_LINK_MS)) sessionStorage.removeItem(key);
    }
    sessionStorage.setItem(pendingKey(id, from), JSON.stringify({ to: location.hash, at: now }));
  } catch {
    // no storage here (a sandbox without allow-same-origin): a reload may start from the address before the last write
  }
}

function takePendingLink() {
  try {
    const id = documentId();
    if (id === null) return;
    let href = location.href;
    for (;;) {
      const key = pendingKey(id, href);
      const pending = JSON.parse(sessionStorage.getItem(key) ?? "null");
      sessionStorage.removeItem(key); // taken once (a chain that comes back to an address stops there)
      if (!pending || !(Date.now() - pending.at < PENDING_LINK_MS)) break;
      href = new URL(pending.to, href).href;
    }
    if (href !== location.href) history.replaceState(history.state, "", href);
  } catch {
    // no storage: the address as it is
  }
}

/** The view the address asks for, for the figure's start (AttentionFigure's initialView): the chain
 *  of kept writes followed first. */
export function viewInAddress(config, maxChars) {
  takePendingLink();
  return readLink(location.hash, config, maxChars, asInBox);
}

/** Keep `figure`'s view in the address: written (history.replaceState: no history entry per
 *  keystroke) once the view has not changed for PAUSE_MS (browsers ignore, with a warning, more
 *  than about 100 calls in 10 s, and each write, with its sessionStorage entry, took 12 ms of the main
 *  thread at CPU x4: written while the reader typed, it delayed the next keystroke's frame), and at
 *  once before the address is read or the page may go (Copy link, pagehide, a hidden tab), so that the
 *  last change is never lost; followed on a same-document navigation. */
export function keepLinkInAddress(figure) {
  let timer = null;
  let fragment = null; // the last one written or followed

  function writeNow() {
    clearTimeout(timer);
    timer = null;
    if (!figure.readerView) return;
    const written = figure.linkFragment();
    if (location.hash !== written) {
      const from = location.href;
      history.replaceState(history.state, "", written);
      keepPendingLink(from);
    }
    fragment = location.hash;
    figure.showLinkInBox(location.href);
  }

  /* A same-document navigation (a link to this page opened in the tab that shows it, Back or Forward,
   * a host changing only the fragment of the iframe's src): the view follows the new fragment as a
   * fresh load would (AttentionFigure.showView). Before build.json has arrived, the figure's start
   * reads the address itself. */
  function follow() {
    if (!figure.canFollowLink || location.hash === fragment) return;
    clearTimeout(timer); // the old view is never written over the new link
    timer = null;
    fragment = location.hash;
    figure.followLink(location.hash);
  }

  figure.onChange(() => {
    if (!figure.readerView) return;
    clearTimeout(timer);
    timer = setTimeout(writeNow, PAUSE_MS);
  });
  window.addEventListener("hashchange", follow);
  window.addEventListener("popstate", follow);
  window.addEventListener("pagehide", writeNow); // a reload or a closed tab keeps the last change
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") writeNow(); });
  return { writeNow };
}
