"""embed.html's snippets as a course author copies them: read from the served page, each file's part
as it prints it (tests/test_release.py, tests/test_snippet_sites.py)."""


def embed_snippets(context, url):
    """The snippets of the embed.html at ``url``: [{name, title, parts: {file label: code}, preview}],
    ``preview`` the preview's HTML or None where the snippet has none."""
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("[data-snippet] pre", state="attached")
    snippets = page.evaluate("""() => [...document.querySelectorAll('[data-snippet]')].map((section) => ({
        name: section.dataset.snippet, title: section.querySelector('h2').textContent,
        parts: Object.fromEntries([...section.querySelectorAll('pre')].map((pre) => [pre.dataset.file, pre.textContent])),
        preview: section.querySelector('.preview')?.innerHTML ?? null}))""")
    page.close()
    return snippets


def part(snippet, file):
    """The code of ``snippet``'s part for the file ``file``: the one part whose label starts with it."""
    (code,) = [code for label, code in snippet["parts"].items() if label.split(" ")[0] == file]
    return code
