/* The figure's tools (one feature of a figure: figure.js's controllers): "Copy link", "Save PNG" and
 * "Save SVG", and, where a sandboxed frame may have blocked a download, the saved image shown in the
 * figure to save by hand. The answer to each button goes on the status line (the core's say), as a
 * message of the catalog (lib/shown.js), written in the figure's language when shown.
 */

const DOWNLOAD_KEPT_MS = 60000; // an object URL outlives its download's start by this much

const embedded = window.parent !== window;

/* Whether the figure runs in a sandboxed frame: there, setting document.domain throws (HTML's
 * "sandboxed document.domain browsing context flag", set by any sandbox attribute). Checked only
 * in a frame, when saving: a sandbox without allow-downloads blocks the download, and no script can
 * tell whether the download was allowed. */
function inSandbox() {
  if (!embedded) return false;
  try {
    document.domain = document.domain; // eslint-disable-line no-self-assign
    return false;
  } catch {
    return true;
  }
}

/**
 * @param figure   the core (figure.js): messages, linkFragment(), image(format), summary(), say(message), changed()
 * @param parts    {copyLink, linkBox, linkText, savedImage, saveButtons}: the buttons and boxes
 * @param linkHref (fragment) => the address "Copy link" copies for the view `fragment`; null: no Copy link
 * @returns {showLinkInBox(href), language(), destroy()}
 */
export function createTools(figure, { copyLink, linkBox, linkText, savedImage, saveButtons }, linkHref) {
  const listening = new AbortController();
  const { signal } = listening;
  const urls = new Set(); // object URLs not yet revoked
  const timers = new Set();
  const revoke = (url) => {
    URL.revokeObjectURL(url);
    urls.delete(url);
  };

  /* Where the clipboard is refused (an iframe without allow="clipboard-write", a browser's setting), the
   * link is shown selected, to copy by hand: inside an iframe the address bar shows the course page. */
  async function copy() {
    const href = linkHref(figure.linkFragment());
    try {
      const policy = document.permissionsPolicy ?? document.featurePolicy; // Chromium: a refused call also logs an error
      if (policy && !policy.allowsFeature("clipboard-write")) throw new Error("the clipboard is not allowed here"); // not shown
      await navigator.clipboard.writeText(href);
      linkBox.hidden = true;
      figure.say({ key: "tools.linkCopied" });
    } catch {
      linkBox.hidden = false;
      linkText.value = href;
      linkText.focus();
      linkText.select();
      figure.changed();
      figure.say({ key: embedded ? "tools.clipboardRefusedByPage" : "tools.clipboardRefused" });
    }
  }

  /* The image of the view (the core's image), downloaded under its own name. */
  async function save(format, button) {
    try {
      const { file, note } = await figure.image(format);
      const anchor = document.createElement("a");
      anchor.href = URL.createObjectURL(file);
      urls.add(anchor.href);
      anchor.download = file.name;
      anchor.click();
      // its size in KB as the language writes a number (no thousands separator, as before), and export.js's note, if any
      const params = { name: file.name, size: { number: file.size / 1024, digits: 0, grouping: false }, ...(note && { note }) };
      if (inSandbox()) {
        showSaved(anchor.href, file.name, button);
        figure.say({ key: note ? "tools.savingInSandboxNote" : "tools.savingInSandbox", params });
      } else {
        const timer = setTimeout(() => { timers.delete(timer); revoke(anchor.href); }, DOWNLOAD_KEPT_MS);
        timers.add(timer);
        figure.say({ key: note ? "tools.savedNote" : "tools.saved", params });
      }
    } catch (error) {
      figure.say({ key: "tools.imageFailed", params: { reason: error } });
    }
  }

  /* The image just saved, shown in the figure until closed; Close gives the focus back to `opener`. */
  const [image, close] = [savedImage.querySelector("img"), savedImage.querySelector("button")];
  let opener = null;
  let savedName = null; // the name of the image shown, for its alt text
  const writeAlt = () => { image.alt = figure.messages.text("tools.savedImageAlt", { name: savedName, summary: figure.summary() }); };
  function showSaved(url, name, button) {
    if (image.src.startsWith("blob:")) revoke(image.src);
    image.src = url;
    savedName = name;
    writeAlt();
    savedImage.hidden = false;
    opener = button;
    figure.changed();
  }
  close.addEventListener("click", () => {
    savedImage.hidden = true;
    revoke(image.src);
    image.removeAttribute("src");
    opener?.focus({ preventScroll: true }); // back to the Save button that showed it
    figure.changed();
  }, { signal });

  copyLink.hidden = linkHref === null; // no page to link to (a notebook's figure)
  copyLink.addEventListener("click", copy, { signal });
  for (const button of saveButtons) button.addEventListener("click", () => save(button.dataset.save, button), { signal });

  return {
    /** The link box, where it is shown, holds `href` (the address, rewritten after the box was shown). */
    showLinkInBox(href) {
      if (!linkBox.hidden) linkText.value = href;
    },
    /** The saved image's alt text, where it is shown, written again in the figure's language. */
    language() {
      if (!savedImage.hidden && savedName !== null) writeAlt();
    },
    destroy() {
      listening.abort();
      for (const timer of timers) clearTimeout(timer);
      for (const url of urls) URL.revokeObjectURL(url);
      urls.clear();
    },
  };
}
