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
