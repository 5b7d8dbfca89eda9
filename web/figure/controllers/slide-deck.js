/* The figure on a slide of a reveal.js deck (one feature of a figure: figure.js's controllers); Quarto's
 * revealjs format is built on reveal.js and has the same structure (.reveal > .slides > section).
 *
 * Touch swipes: reveal.js moves to another slide on a swipe unless an ancestor of the touch's target has
 * a data-prevent-swipe attribute. A touch inside a shadow root reaches the deck's listeners with the
 * host as its target, so the attribute goes on the host (the <attention-live> element), unless it is
 * there already; it goes again with the figure. A swipe on the figure then scrolls or selects in it,
 * and a swipe elsewhere on the slide still changes slides.
 *
 * Its height: a slide is 960 × 700 px (reveal.js's default, scaled to the screen), and the figure with
 * its closed panels must fit one below a title. On a slide, the two paragraphs about the model and the
 * chips (a reader's, not a class's: 250 px) are not shown (figure.css: .on-slide); the figure's
 * description for screen readers stays. Whether the figure is on a slide is read once, when it is made
 * (an element's figure is made when the element joins the page).
 */

// reveal.js's attribute, and its slides
const SWIPE = "data-prevent-swipe"; // not shown
const SLIDE = ".reveal .slides section"; // not shown

/**
 * @param root the figure's element (its parts are inside it)
 * @param host the element that holds the figure on the page (the <attention-live> element), or null
 * @returns {destroy()}
 */
export function createSlideDeck(root, host) {
  const marked = host !== null && !host.hasAttribute(SWIPE);
  if (marked) host.setAttribute(SWIPE, "");
  root.classList.toggle("on-slide", host?.closest(SLIDE) != null);
  return {
    destroy() {
      if (marked) host.removeAttribute(SWIPE);
    },
  };
}
