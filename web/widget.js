/* The figure as an anywidget front-end module (https://anywidget.dev/en/afm/): `render({model, el})`
 * puts an <attention-live> element (attention-live.js: the same element, with the same methods and
 * events) into `el` and returns the cleanup that removes it.
 *
 *   MyST's {anywidget} directive          model: the directive's JSON body; get, set and on only
 *     (myst-theme packages/anywidget)     Python: the tab's, from the build's own folder beside this
 *                                         module, shared with every other figure of the page
 *   Jupyter (attention_live.widget)       model: the kernel's AttentionLive (its traitlets)
 *     JupyterLab, Notebook 7, VS Code,    Python: the kernel's CPython, over the model's messages
 *     Colab                               (kernel-port.js); no Pyodide is loaded
 *
 * The element's attributes come from the model's `text`, `layer`, `head`, `token` (1-based),
 * `panels` (a comma-separated list, or an array) and `lang` (the figure's language: "de", "es", "fr";
 * none or "": the page's), and follow their change events. With a kernel
 * (the model's `_kernel` is true) what the reader does goes back: the model's values are set and
 * saved, so that the notebook reads them. Without one nothing is written to the model: MyST's model
 * throws on save_changes, send and off, none of which is called then.
 */
import { RUNTIME } from "./attention-live.js";
import { PythonClient } from "./runtime/python-client.js";
import { kernelPort } from "./runtime/kernel-port.js";

const ATTRIBUTES = ["text", "layer", "head", "token", "panels", "lang"];
const kernels = new WeakMap(); // a kernel's model -> its PythonClient, shared by the model's views

/* A model value as the attribute's text; null: no attribute (the figure's default). */
function attributeValue(name, value) {
  if (value === undefined || value === null) return null;
  if (name === "panels" && Array.isArray(value)) return value.join(",");
  if (name === "lang" && value === "") return null; // the page's language
  if (name !== "text" && name !== "panels" && name !== "lang" && value === 0) return null; // an int traitlet's "not set"
  return String(value);
}

/* A model value (not the text) as select()'s choice: token 1-based there, 0-based here; 0 or none
 * leaves the token as it is. */
function choiceOf(name, value) {
  if (name === "token") return value > 0 ? { token: value - 1 } : {};
  if (name === "panels") return { panels: value ?? "" };
  return { [name]: value };
}

/* What the figure shows, as the model's values (state(): token 0-based, panels an object). */
function modelValues(state) {
  return {
    text: state.text,
    layer: state.layer,
    head: state.head,
    token: state.token === null ? 0 : state.token + 1,
    panels: Object.entries(state.panels).filter(([, open]) => open).map(([name]) => name).join(","),
  };
}

/* The notebook's own light or dark theme, where it says which ("light", "dark"; null: it does not, and
 * the figure follows the browser's scheme): JupyterLab and Notebook 7 mark <body> with
 * data-jp-theme-light, VS Code with a vscode-light or vscode-dark class. */
function notebookTheme() {
  const { body } = document;
  if (body.dataset.jpThemeLight !== undefined) return body.dataset.jpThemeLight === "true" ? "light" : "dark";
  if (body.classList.contains("vscode-dark") || body.classList.contains("vscode-high-contrast")) return "dark";
  if (body.classList.contains("vscode-light")) return "light";
  return null;
}

/* The element's theme attribute follows the notebook's theme while it changes; returns the cleanup. */
function followNotebookTheme(element) {
  const apply = () => {
    const theme = notebookTheme();
    if (theme === null) element.removeAttribute("theme");
    else if (element.getAttribute("theme") !== theme) element.setAttribute("theme", theme);
  };
  apply();
  const observer = new MutationObserver(apply);
  observer.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "class"] });
  return () => observer.disconnect();
}

/* The notebook's kernel as the figure's Python, its build.json from the model (attention_live.widget). */
function kernelRuntime(model) {
  if (!kernels.has(model)) kernels.set(model, new PythonClient(null, { openPort: () => kernelPort(model) }));
  return {
    python: kernels.get(model),
    manifest: async () => model.get("_manifest"),
    linkHref: null, // a notebook has no page of the figure to link to: no Copy link
    where: "where.kernel", // "by the notebook's kernel"
    catalog: async (lang) => {
      const catalog = model.get("_manifest").catalogs?.[lang];
      if (!catalog) throw new Error(`no catalog for ${lang}`); // not shown
      return catalog;
    },
  };
}

function render({ model, el }) {
  const kernel = model.get("_kernel") === true;
  const element = document.createElement("attention-live");
  // keys pressed in the figure are the figure's (its grid and chips take arrows and letters): JupyterLab
  // reads command-mode shortcuts from keys in elements that are not editable, unless told not to
  element.setAttribute("data-lm-suppress-shortcuts", "true");
  const pushed = {}; // the values this view last wrote to the model: their echoes are not applied
  let writing = false; // model.set fires change events at once: this view's own are not followed
  let gone = false;

  for (const name of ATTRIBUTES) {
    const text = attributeValue(name, model.get(name));
    if (text !== null) element.setAttribute(name, text);
  }
  /* A value changed on the model: the figure follows through its methods, which change that one part
   * of the view (an attribute would reset the reader's text and what-ifs, as a new link does). */
  const follow = (name) => {
    if (gone || writing) return;
    const value = model.get(name);
    if (Object.hasOwn(pushed, name) && pushed[name] === value) return; // what the reader made, coming back
    if (name === "lang") { // the words again (attention-live.js), not the view
      const text = attributeValue(name, value);
      if (text === null) element.removeAttribute("lang");
      else element.setAttribute("lang", text);
      return;
    }
    const done = name === "text" ? element.setText(String(value ?? "")) : element.select(choiceOf(name, value));
    done.catch((error) => console.warn(`attention-live: the model's ${name} ${JSON.stringify(value)} was not shown: ${error.message}`)); // not shown
  };
  const handlers = ATTRIBUTES.map((name) => [`change:${name}`, () => follow(name)]);
  for (const [event, handler] of handlers) model.on(event, handler);

  const push = (event) => {
    const values = modelValues(event.detail);
    const changed = Object.entries(values).filter(([name, value]) => model.get(name) !== value);
    if (changed.length === 0) return;
    writing = true;
    try {
      for (const [name, value] of changed) {
        pushed[name] = value;
        model.set(name, value);
      }
    } finally {
      writing = false;
    }
    model.save_changes();
  };
  let stopTheme = () => {};
  if (kernel) {
    element[RUNTIME] = kernelRuntime(model);
    element.addEventListener("attention-live:change", push);
    stopTheme = followNotebookTheme(element);
  }
  el.append(element);

  return () => {
    gone = true; // MyST's model has no off(): its handlers stay, doing nothing
    stopTheme();
    if (kernel) {
      element.removeEventListener("attention-live:change", push);
      for (const [event, handler] of handlers) model.off(event, handler);
    }
    element.remove(); // the element lets its figure go: Python drops its view (attention-live.js)
  };
}

export default { render };
