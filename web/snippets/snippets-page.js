/* embed.html: the snippets for each kind of course page (snippets.js), each with a Copy button
 * and a live preview of what it becomes on the page, for the figure where this page is hosted. */
import "../attention-live.js";
import { snippets } from "./snippets.js";

const base = new URL("./", document.baseURI).href; // the folder of embed.html and index.html
const list = document.getElementById("snippets");
const originBox = document.getElementById("course-origin");
const announcer = document.getElementById("announcer");

/* One section per snippet: its title, where it goes, each file's part (its file's name, the code,
 * Copy), and the preview where the snippet has one. */
function draw() {
  const origin = originBox.checkValidity() && originBox.value ? new URL(originBox.value).origin : "https://course.example.edu";
  list.replaceChildren(...snippets(base, origin).map((snippet) => {
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
      copy.textContent = "Copy";
      const what = snippet.parts.length > 1 ? `${part.file} for ${snippet.title}` : `the snippet for ${snippet.title}`;
      copy.setAttribute("aria-label", `Copy ${what}`);
      copy.addEventListener("click", () => copyText(part.code, what, code));
      section.append(file, code, copy);
    });
    if (snippet.preview !== null) {
      const preview = document.createElement("div");
      preview.className = "preview";
      preview.setAttribute("role", "region");
      preview.setAttribute("aria-label", `Preview: ${snippet.title}`);
      preview.innerHTML = snippet.preview; // our own markup (snippets.js), with this page's address in it
      section.append(preview);
    }
    return section;
  }));
}

/* Copies `text` (what: "the snippet for …" or "FILE for …", for the announcement). */
async function copyText(text, what, code) {
  try {
    await navigator.clipboard.writeText(text);
    announcer.textContent = `Copied ${what}.`;
  } catch {
    getSelection().selectAllChildren(code); // where the clipboard is refused: selected, to copy by hand
    announcer.textContent = `The browser did not allow copying: ${what} is selected; copy it with Ctrl+C (⌘C).`;
  }
}

/* The previews' iframes follow their figure's height, as the iframe snippet's script does. */
addEventListener("message", (event) => {
  if (event.origin !== location.origin || event.data?.type !== "attention-live:resize") return;
  for (const frame of list.querySelectorAll("iframe")) {
    if (frame.contentWindow === event.source) frame.style.height = `${event.data.height}px`;
  }
});
originBox.addEventListener("change", draw);
draw();
