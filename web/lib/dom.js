/* The DOM helpers every view uses. Text is always set as text content, never parsed as HTML. */

/** A new `tag` element with an optional class and text. */
export function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Set `node`'s text only if it differs: an unchanged text costs the page no new layout. */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** Show or hide `node` only if that changes: setting `hidden` again restyles the element all the same
 *  (in Chromium, each time), and views call this on every edit. */
export function setHidden(node, hidden) {
  if (node.hidden !== hidden) node.hidden = hidden;
}

/** The DOM of `tree`, markup as plain values (build.py's MarkupTree: an element is
 *  [tag, {attribute: value}, ...children], a text a string), made with createElement and text nodes:
 *  no HTML is parsed, so no Trusted Types sink is used. Returns the element. */
export function fromTree([tag, attributes, ...children]) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children.map((child) => (typeof child === "string" ? child : fromTree(child))));
  return node;
}

/** The element that has the focus within `node`'s tree (its document, or the shadow root it is in),
 *  or null: document.activeElement is the shadow host for a focus inside a shadow root. */
export function focusedIn(node) {
  return node.getRootNode().activeElement ?? null;
}
