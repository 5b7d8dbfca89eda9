/* Firefox for the cross-engine tests (tests/engines.py): puppeteer-core launches Debian's firefox-esr,
 * headless, and speaks WebDriver BiDi with it (Firefox implements it itself: no geckodriver). The tests
 * talk to this script over its standard input and output, one JSON object a line each way:
 *
 *   in:  {op: "newPage"}                          a page in a fresh browser context; answers its number
 *        {op: "goto", page, url}   {op: "reload", page}
 *        {op: "evaluate", page, fn, arg}          (fn)(arg) in the page: fn is a function's source, arg
 *                                                 JSON; a promise is awaited; answers the value (JSON)
 *        {op: "type", page, selector, text}       keystrokes into the element
 *        {op: "click", page, selector}
 *        {op: "problems", page}                   page errors, console errors and requests that left the
 *                                                 origin of the page's first address, so far
 *        {op: "closePage", page}
 *   out: {ok: value} or {error: message}, in order
 *
 * Usage: node firefox-bridge.mjs /usr/bin/firefox-esr   (run from where puppeteer-core is installed)
 */
import { createInterface } from "node:readline";
import puppeteer from "puppeteer-core";

const [executablePath] = process.argv.slice(2);
const browser = await puppeteer.launch({ browser: "firefox", executablePath, headless: true });
const pages = new Map();
let made = 0;

const ops = {
  async newPage() {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    const problems = [];
    const entry = { page, context, problems, origin: null };
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => { if (message.type() === "error") problems.push(`console error: ${message.text()}`); });
    page.on("request", (request) => {
      const url = request.url();
      const { origin } = entry;
      if (origin && !url.startsWith(`${origin}/`) && !url.startsWith(`blob:${origin}/`) && !url.startsWith("data:")) problems.push(`request left the page's origin: ${url}`);
    });
    pages.set(++made, entry);
    return made;
  },
  async goto({ page, url }) {
    const entry = pages.get(page);
    entry.origin ??= new URL(url).origin;
    await entry.page.goto(url);
  },
  reload: async ({ page }) => { await pages.get(page).page.reload(); },
  evaluate: ({ page, fn, arg }) => pages.get(page).page.evaluate(`(${fn})(${JSON.stringify(arg ?? null)})`),
  type: ({ page, selector, text }) => pages.get(page).page.type(selector, text),
  click: ({ page, selector }) => pages.get(page).page.click(selector),
  problems: ({ page }) => pages.get(page).problems,
  async closePage({ page }) {
    await pages.get(page).context.close();
    pages.delete(page);
  },
};

for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line);
  try {
    process.stdout.write(`${JSON.stringify({ ok: (await ops[command.op](command)) ?? null })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ error: String(error?.message ?? error) })}\n`);
  }
}
await browser.close();
