"""Every row of ../shared/cases/hostile-inputs.md has a test named after its kind: text kinds on both
sides (test_hostile_text.py for Python, test_hostile_page.py for the page), hosting and long-use kinds
in the browser, and "numbers" on both sides. Every row of ../shared/cases/course-pages.md has one in
test_course_pages.py, and every row of ../shared/cases/classrooms.md one: the teaching kinds (issue 53)
in test_classrooms.py, the stricter sites' (issue 54) in test_stricter_sites.py, but those of issue 54
listed by name below until each is done."""

import re

import pytest

import test_classrooms
import test_course_pages
import test_hostile_page
import test_hostile_text
import test_stricter_sites
from conftest import CASES


def kinds_by_section(cases=CASES):
    """{section heading: [kind, ...]} from the first column of each table of a cases file."""
    if not cases.exists():
        pytest.skip(f"no cases file at {cases}; set ATTENTION_LIVE_CASES")
    sections, heading = {}, None
    for line in cases.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            heading = line[3:].strip()
        elif line.startswith("| ") and not line.startswith("| kind ") and heading:
            sections.setdefault(heading, []).append(line.split("|")[1].strip())
    return sections


def expected_test_name(kind):
    """'lone UTF-16 surrogate from the browser' -> 'test_lone_utf_16_surrogate_from_the_browser'."""
    return "test_" + re.sub(r"[^a-z0-9]+", "_", kind.lower()).strip("_")


def test_every_kind_has_its_tests():
    sections = kinds_by_section()
    assert [len(kinds) for kinds in sections.values()] == [11, 10, 3], sections
    text, hosting, long_use = sections.values()
    wanted = [(test_hostile_text, kind) for kind in [*text, "numbers"]]
    wanted += [(test_hostile_page, kind) for kind in [*text, *hosting, *long_use]]
    missing = [f"{module.__name__}.{expected_test_name(kind)}" for module, kind in wanted if not hasattr(module, expected_test_name(kind))]
    assert not missing, f"kinds of the cases file without a test: {missing}"


def test_every_course_page_kind_has_its_test():
    sections = kinds_by_section(CASES.with_name("course-pages.md"))
    assert [len(kinds) for kinds in sections.values()] == [16, 6], sections
    kinds = [kind for section in sections.values() for kind in section]
    missing = [expected_test_name(kind) for kind in kinds if not hasattr(test_course_pages, expected_test_name(kind))]
    assert not missing, f"kinds of course-pages.md without a test: {missing}"


# classrooms.md's kinds of issue 54: their tests are in test_stricter_sites.py; those not done yet are
# listed in NOT_DONE_YET, each coming off that list when its test is there
ISSUE_54 = ["a strict Content-Security-Policy", "Trusted Types on every response", "the figure's files on another origin",
            "a sandboxed frame without `allow-same-origin`", "a site's language switcher"]
NOT_DONE_YET = ["a strict Content-Security-Policy", "Trusted Types on every response", "the figure's files on another origin",
                "a sandboxed frame without `allow-same-origin`"]


def test_every_classroom_kind_has_its_test():
    """Each kind of classrooms.md has its test, named after it: issue 53's three in test_classrooms.py,
    issue 54's in test_stricter_sites.py, but those of NOT_DONE_YET; a new kind, or a kind without its
    test, fails here, and so does a kind still listed as not done that has its test."""
    sections = kinds_by_section(CASES.with_name("classrooms.md"))
    kinds = [kind for section in sections.values() for kind in section]
    assert len(kinds) == 8, kinds
    assert [kind for kind in ISSUE_54 if kind not in kinds] == [], "a kind of issue 54 is no longer in classrooms.md"
    teaching = [kind for kind in kinds if kind not in ISSUE_54]
    assert [expected_test_name(kind) for kind in teaching] == ["test_a_slide_deck", "test_undo", "test_a_printed_handout"]
    wanted = [(test_classrooms, kind) for kind in teaching] + [(test_stricter_sites, kind) for kind in ISSUE_54 if kind not in NOT_DONE_YET]
    missing = [f"{module.__name__}.{expected_test_name(kind)}" for module, kind in wanted if not hasattr(module, expected_test_name(kind))]
    assert not missing, f"kinds of classrooms.md without a test: {missing}"
    done = [kind for kind in NOT_DONE_YET if hasattr(test_stricter_sites, expected_test_name(kind))]
    assert not done, f"kinds listed as not done that have their test: take them off NOT_DONE_YET: {done}"
