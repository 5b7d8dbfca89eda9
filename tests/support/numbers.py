"""Numbers compared within a tolerance, saying how far apart they were."""

import numpy as np


def assert_close(ours, reference, tolerance, what):
    worst = float(np.max(np.abs(ours - reference)))
    print(f"{what}: largest difference {worst:.3g} (tolerance {tolerance})")
    assert worst <= tolerance, f"{what}: largest difference {worst:.3g} exceeds {tolerance}"
