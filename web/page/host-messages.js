/* Embedding: the figure in an iframe of a course page on another origin. A host page talks to it with
 * window.postMessage (same-origin hosts may also call window.attentionLive directly):
 *
 *   host → figure   {type: "attention-live:setText", text, id?}
 *                   {type: "attention-live:select", layer?, head?, token?, step?, predict?, controls?, tourIndex?, id?}
 *                                                                    (as attentionLive.select)
 *                   {type: "attention-live:predict", on, id?}        "Predict, then look" on (true) or off
 *                   {type: "attention-live:getState", id?}
 *   figure → host   {type: "attention-live:reply", id, ok, error?}   to the sender, when it passed an id
 *                   {type: "attention-live:ready"}                   to the parent, whatever its origin
 *                   {type: "attention-live:resize", height}          to the parent, whatever its origin:
 *                                                                    the content height in CSS px, on every change
 *                                                                    and again just after ready
 *                   {subject: "lti.frameResize", height}             the same, for Canvas, with ?lti=1
 *                   {type: "attention-live:state", state}            as attentionLive.state(), when it changed (at
 *                                                                    most every STATE_MS) and on getState, only to an
 *                                                                    origin listed in ?embed-origin= (it holds the
 *                                                                    visitor's text)
 *                   {type: "attention-live:guess", detail}           the reader's answer in "Predict, then look"
 *                                                                    (the element's attention-live:guess detail),
 *                                                                    to the same origins as the state
 *
 * Only messages from the parent window are read; any other message, of an unknown type or a bad shape,
 * is ignored without an error (a bad shape with an id gets a reply with ok: false). Texts from messages
 * go through attentionLive.setText like any other: data, never code. Nothing here waits for a drawn
 * frame (frames.js): a figure in a hidden or offscreen iframe answers and reports its height too.
 * The messages are data for the host page's code, never shown by the figure: their words stay English.
 */

import { drawn } from "../lib/frames.js";
import { throttled } from "../lib/throttle.js";

const PREFIX = "attention-live:";
const STATE_MS = 200; // state messages at most this often: each holds the whole T × T matrix

/** The page's embedding options from its query string (`search`, location.search):
 *  {origins: exact origins allowed to receive the state (embed-origin, repeated or comma-separated),
 *   rejected: values of embed-origin that are not an origin, lti: true with lti=1}. */
export function readEmbedOptions(search) {
  const params = new URLSearchParams(search);
  const values = params.getAll("embed-origin").flatMap((value) => value.split(",")).map((value) => value.trim()).filter(Boolean);
  const isOrigin = (value) => {
    try {
      const url = new URL(value);
      return url.origin !== "null" && url.origin === value;
    } catch {
      return false;
    }
  };
  return { origins: values.filter(isOrigin), rejected: values.filter((value) => !isOrigin(value)), lti: params.get("lti") === "1" };
}

/** Start the protocol for `api` (window.attentionLive) with `options` (readEmbedOptions). Returns
 *  {ready(): announce that the live figure is ready, guess(detail): the reader's answer, changed(): the view or its content changed (the
 *  state is sent where allowed, if it changed, at most every STATE_MS; the height where no frame is
 *  drawn)}; both do nothing outside an iframe. */
export function startEmbedding(api, options) {
  const parent = window.parent;
  const embedded = parent !== window;
  let hostOrigin = null; // the parent's origin, once a message from it has said so
  const stateChanges = throttled(STATE_MS, () => sendState(true));
  let stateSent = null; // the JSON of the last state sent by changed(): an unchanged state is not sent again

  /* The parent's origin, where the browser tells: Chromium's and Safari's ancestorOrigins, the origin
   * of a message it sent, or the referrer; null when unknown. */
  function parentOrigin() {
    if (location.ancestorOrigins?.length) return location.ancestorOrigins[0];
    if (hostOrigin) return hostOrigin;
    try {
      return document.referrer ? new URL(document.referrer).origin : null;
    } catch {
      return null;
    }
  }

  /* Where the state may go: the parent's origin if it is listed; with the parent's origin unknown,
   * each listed origin (the browser delivers to the one that matches, if any). Never "*". */
  function stateTargets() {
    if (!embedded) return [];
    const known = parentOrigin();
    if (known === null) return options.origins;
    return options.origins.includes(known) ? [known] : [];
  }

  /* The state to the allowed origins; `onlyIfChanged`: not when it is the one sent last. */
  function sendState(onlyIfChanged = false) {
    const targets = stateTargets();
    if (targets.length === 0) return false;
    const state = api.state();
    const json = JSON.stringify(state);
    if (onlyIfChanged && json === stateSent) return true;
    stateSent = json;
    stateChanges.sent();
    for (const origin of targets) parent.postMessage({ type: `${PREFIX}state`, state }, origin);
    return true;
  }

  function toParent(message) {
    if (embedded) parent.postMessage(message, "*"); // nothing the visitor typed: any parent may know
  }

  let height = -1;
  function sendHeight() {
    const now = Math.ceil(document.documentElement.getBoundingClientRect().height); // content, not the frame
    if (now === height) return;
    height = now;
    toParent({ type: `${PREFIX}resize`, height });
    if (options.lti) toParent({ subject: "lti.frameResize", height });
  }

  const handlers = {
    setText: (data) => api.setText(data.text),
    select: (data) => api.select({ layer: data.layer, head: data.head, token: data.token, step: data.step, predict: data.predict, controls: data.controls, tourIndex: data.tourIndex }),
    predict: (data) => {
      if (typeof data.on !== "boolean") throw new TypeError("attention-live:predict needs on: true or false"); // not shown
      return api.select({ predict: data.on });
    },
    getState: async () => {
      if (!sendState()) throw new Error("this figure sends its state only to the origins listed in its embed-origin parameter"); // not shown
    },
  };

  async function onMessage(event) {
    if (!embedded || event.source !== parent) return;
    const { data } = event;
    if (data === null || typeof data !== "object" || typeof data.type !== "string" || !data.type.startsWith(PREFIX)) return;
    if (event.origin !== "null") hostOrigin = event.origin;
    const handler = Object.hasOwn(handlers, data.type.slice(PREFIX.length)) ? handlers[data.type.slice(PREFIX.length)] : null;
    if (handler === null) return; // an unknown type (our own messages, sent back, among them)
    let reply;
    try {
      await handler(data);
      reply = { type: `${PREFIX}reply`, id: data.id, ok: true };
    } catch (error) {
      // data for the host page's code: the API's error, in English
      reply = { type: `${PREFIX}reply`, id: data.id, ok: false, error: String(error?.message ?? error) }; // not shown
    }
    if (data.id !== undefined) event.source.postMessage(reply, event.origin === "null" ? "*" : event.origin);
  }

  if (embedded) {
    window.addEventListener("message", (event) => { onMessage(event).catch(() => {}); });
    new ResizeObserver(sendHeight).observe(document.documentElement);
  }

  return {
    ready() {
      toParent({ type: `${PREFIX}ready` });
      height = -1; // the height again, for a host that started listening late
      sendHeight();
    },
    /** The reader's answer in "Predict, then look" (the attention-live:guess event's detail), to the
     *  origins the state may go to: a course page may record it (docs/embedding.md). */
    guess(detail) {
      for (const origin of stateTargets()) parent.postMessage({ type: `${PREFIX}guess`, detail }, origin);
    },
    changed() {
      if (!embedded) return;
      if (!drawn()) sendHeight(); // where frames are drawn, the ResizeObserver says it
      if (options.origins.length > 0) stateChanges.changed();
    },
  };
}
