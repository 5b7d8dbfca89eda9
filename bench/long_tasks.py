"""The main thread under hostile input (issue 54, part 6): the longest main-thread task and the time to a
result where ../shared/cases/hostile-inputs.md and course-pages.md bound them, measured here rather than
asserted in tests (a loaded machine makes any duration longer; the tests keep what load cannot break: the
numbers of the last text, and a page that still answers the next event).

Each row is measured in a fresh browser context on dist/, with the Long Tasks API (tasks over 50 ms whose
culprit is the figure's own document; 0 when none was that long):

* typing 1,000 characters with no pause between key presses;
* each pathological text of tests/conftest.py put in the box as one input event (a paste): its first
  result (attention-live:drawn's duration) and the longest task;
* a 1 MB paste into the box (the figure caps it before the browser lays it out);
* a text of 1, 10 and 40 MB sent by a host page on another site with postMessage (setText): the longest
  task, and the time the figure's own message listeners take (from the first listener to after the last);
  at 40 MB Chromium spends 0.2–1.1 s delivering the string to a cross-site frame before any listener runs
  (the structured clone, the floor), so that size is judged on the figure's part alone;
* a text attribute of 1, 10 and 40 MB on an element.
"""

from attention_live.figure import MAX_TEXT_CHARS
from support.figure_page import FigurePage, browser_context, course_site, ends_with, length
from support.host_page import host

LONGEST_TASK_MS = 200  # the cases files' bound on one main-thread task
FIRST_RESULT_MS = 2000  # a pathological text's first result
LISTENERS_MS = 50  # the figure's own part of a huge text by message (issue 54, part 5)
TYPED = ("Alice said to the Queen, \"I only wanted to see what the garden was like.\"\n" * 14)[:1000]
# the figure's message listeners: from the first (capturing, added before the figure's) to after the last
LISTENER_TIME = """() => {
    let started = 0;
    window.addEventListener("message", () => { started = performance.now(); }, true);
    window.addEventListener("message", () => { window.listenerMs = performance.now() - started; });
}"""


def typing_fast(context, origin):
    figure_page = FigurePage(context.new_page())
    figure_page.open(origin + "/")
    figure_page.set_text("")
    figure_page.watch_long_tasks()
    figure_page.locator("#text").press_sequentially(TYPED)
    figure_page.wait_for(text=TYPED)
    return figure_page.longest_task_ms()


def pathological(context, origin, texts, figure):
    figure_page = FigurePage(context.new_page())
    figure_page.open(origin + "/")
    rows = {}
    for name, text in texts.items():
        figure_page.set_text("Alice")
        figure_page.watch_long_tasks()
        figure_page.locator("#text").fill(text)  # one input event, as a paste
        figure_page.wait_for(text=figure.analyse(text)["text"])
        first = figure_page.evaluate("performance.getEntriesByName('attention-live:drawn').at(-1).duration")
        rows[name] = {"first_result_ms": round(first, 1), "longest_task_ms": figure_page.longest_task_ms()}
    return rows


def paste_a_megabyte(context, origin):
    figure_page = FigurePage(context.new_page())
    figure_page.open(origin + "/")
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    pasted = "The Queen shouted. " * 55_000
    figure_page.evaluate("t => navigator.clipboard.writeText(t)", pasted)
    figure_page.locator("#text").fill("")
    figure_page.watch_long_tasks()
    figure_page.locator("#text").press("ControlOrMeta+V")
    figure_page.locator("#text").press_sequentially("Yes!")
    figure_page.wait_for(text=ends_with("shouted. Yes!"))
    return figure_page.longest_task_ms()


def by_message(playwright, origin, sizes):
    rows = {}
    with host(playwright, origin, "") as (page, frame, _):
        figure_page = FigurePage(frame)
        frame.evaluate(LISTENER_TIME)
        for megabytes in sizes:
            page.evaluate("mb => { window.huge = 'Alice said. '.repeat(Math.floor(mb * 1e6 / 12)) + 'The end'; }", megabytes)
            figure_page.watch_long_tasks()
            assert page.evaluate("() => ask({ type: 'attention-live:setText', text: window.huge })")["ok"]  # replied once shown
            rows[f"{megabytes} MB"] = {"longest_task_ms": figure_page.longest_task_ms(), "listeners_ms": round(frame.evaluate("window.listenerMs"), 1)}
    return rows


def by_attribute(context, folder, sizes):
    rows = {}
    with course_site(folder, {"huge.html": '<attention-live text="Alice"></attention-live>'}) as url:
        for megabytes in sizes:
            page = context.new_page()
            page.goto(url + "/huge.html")
            element = FigurePage(page, "attention-live")
            element.ready()
            element.watch_long_tasks()
            page.evaluate("mb => document.querySelector('attention-live').setAttribute('text', 'The Queen said. '.repeat(Math.ceil(mb * 1e6 / 16)) + 'Alice')", megabytes)
            element.wait_for(text=length(MAX_TEXT_CHARS))
            rows[f"{megabytes} MB"] = {"longest_task_ms": element.longest_task_ms()}
            page.close()
    return rows


def measure_long_tasks(playwright, origin, figure, texts, folder):
    """Every row above: {typing_fast_ms, pathological: {name: {first_result_ms, longest_task_ms}},
    paste_ms, message: {size: {longest_task_ms, listeners_ms}}, attribute: {size: {longest_task_ms}}}."""
    report = {}
    with browser_context(playwright) as context:
        report["typing_fast_ms"] = typing_fast(context, origin)
    with browser_context(playwright) as context:
        report["pathological"] = pathological(context, origin, texts, figure)
    with browser_context(playwright) as context:
        report["paste_ms"] = paste_a_megabyte(context, origin)
    report["message"] = by_message(playwright, origin, (1, 10, 40))
    with browser_context(playwright) as context:
        report["attribute"] = by_attribute(context, folder, (1, 10, 40))
    return report


def long_task_rows(report):
    """The target rows (what, value, target) of report["long_tasks"]."""
    long = report["long_tasks"]
    rows = [("typing 1,000 keys fast: longest task", long["typing_fast_ms"], LONGEST_TASK_MS)]
    for name, row in long["pathological"].items():
        rows += [(f"{name}: first result", row["first_result_ms"], FIRST_RESULT_MS), (f"{name}: longest task", row["longest_task_ms"], LONGEST_TASK_MS)]
    rows.append(("1 MB paste: longest task", long["paste_ms"], LONGEST_TASK_MS))
    for size, row in long["message"].items():
        if size == "40 MB":  # the browser's delivery is the floor: the figure's own part is judged
            rows.append((f"{size} by message: the figure's listeners", row["listeners_ms"], LISTENERS_MS))
        else:
            rows.append((f"{size} by message: longest task", row["longest_task_ms"], LONGEST_TASK_MS))
    rows += [(f"{size} text attribute: longest task", row["longest_task_ms"], LONGEST_TASK_MS) for size, row in long["attribute"].items()]
    return rows
