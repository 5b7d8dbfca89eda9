"""What holds for any model folder the figure is built with: the shipped one (``weights/``) or one that
``build.py train`` wrote (issue 23). ``python3 build.py test --model DIR`` runs this module against DIR's
build (``ATTENTION_LIVE_MODEL``); the whole suite runs it against the shipped model's.

The build carries the folder's files byte for byte; the page opens on the folder's default view with
the live numbers of CPython's Figure for that model (``check_view``), and what it drew before Python ran
(the precomputed first paint) is that model's too; the "about" text is the folder's.
"""

import os
from pathlib import Path

import build
from conftest import WEIGHTS
from support.model_folder import check_build_carries, check_first_paint_is_the_models, check_page_shows

MODEL = Path(os.environ.get("ATTENTION_LIVE_MODEL", WEIGHTS))


def test_the_build_carries_the_model():
    check_build_carries(build.DIST, MODEL)


def test_the_first_paint_is_the_models():
    check_first_paint_is_the_models(MODEL)


def test_the_page_shows_the_model(browser_page):
    figure_page = browser_page
    check_page_shows(figure_page, MODEL)
