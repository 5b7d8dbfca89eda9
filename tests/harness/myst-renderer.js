/* MyST's own {anywidget} renderer on a page (tests/test_myst_widget.py): @myst-theme/anywidget's
 * AnyWidgetRenderer and MystAnyModel (npm, tests/myst-renderer/package-lock.json) under React, as MyST's
 * book theme renders an article: one React root whose children are the page's nodes, each an
 * AnyWidgetRenderer (in a <div id="node-i"> of this page's, for the tests' selectors). The test bundles
 * this file with esbuild into the site as /_real/renderer.js and loads it from myst-replay.html.
 *
 * Nothing of the renderer is replaced. MyST's model is watched from its prototype: a call of off,
 * save_changes or send, or a read of widget_manager, is recorded in window.myst.attempts before the
 * model's own method throws; each model is recorded as it is first read (window.myst.models).
 *
 * window.myst: {nodes, models, attempts, mount(node), change(i, node), unmount(i), set(i, key, value)};
 * a node taken out (unmount) is drawn as nothing, so the others keep their index. The page says
 * <html data-state="ready"> once the nodes are drawn (their effects then import and render).
 */
import { createElement } from "react";
import { flushSync } from "react-dom";
import { createRoot } from "react-dom/client";
import { ANY_RENDERERS, MystAnyModel } from "@myst-theme/anywidget";

const AnyWidgetRenderer = ANY_RENDERERS.anywidget; // the renderer the theme registers for "anywidget" nodes

const attempts = [];
const models = [];
const proto = MystAnyModel.prototype;
for (const name of ["off", "save_changes", "send"]) {
  const own = proto[name];
  proto[name] = function (...args) {
    attempts.push([name]);
    return own.apply(this, args);
  };
}
const widgetManager = Object.getOwnPropertyDescriptor(proto, "widget_manager").get;
Object.defineProperty(proto, "widget_manager", {
  configurable: true,
  get() {
    attempts.push(["widget_manager"]);
    return widgetManager.call(this);
  },
});
const get = proto.get;
proto.get = function (name) {
  if (!models.includes(this)) models.push(this);
  return get.call(this, name);
};

const nodes = [];
const root = createRoot(document.querySelector("article").appendChild(document.createElement("div")));

function draw() {
  flushSync(() => root.render(nodes.map((node, i) => (node === null ? null
    : createElement("div", { key: `node-${i}`, id: `node-${i}` }, createElement(AnyWidgetRenderer, { node }))))));
}

/* The model of node i: MyST's model reads and writes the node's own model object, so the model whose
 * text is the node's text now (the nodes' texts differ). */
function modelOf(i) {
  return models.find((model) => model.get("text") === nodes[i].model.text);
}

window.myst = {
  nodes, models, attempts,
  mount(node) { nodes.push(node); draw(); },
  change(i, node) { nodes[i] = node; draw(); },
  unmount(i) { nodes[i] = null; draw(); },
  set(i, key, value) { modelOf(i).set(key, value); },
};

nodes.push(...await (await fetch(new URL("nodes.json", location.href))).json());
draw();
document.documentElement.dataset.state = "ready";
