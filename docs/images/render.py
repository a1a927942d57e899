"""Render the pictures of docs/load-aware.md from a report: each figure of its load section as a PNG.

    spark-assign simulate --scenario docs/images/load-aware-example.yaml --table /tmp/lagged \\
        --report /tmp/lagged.html
    python docs/images/render.py /tmp/lagged.html

Uses headless Chromium through the DevTools driver of the report's browser tests (tests/report/chromium.py).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
from tests.report.chromium import Chromium, find_chromium  # noqa: E402

#: PNG name -> the element to capture (a figure of the report's load section).
PICTURES = {
    "load-aware-bound.png": "#bound-figure",
    "load-aware-imbalance.png": "#imbalance-figure",
    "load-aware-weight-moved.png": "#weight-moved-figure",
    "load-aware-members.png": "#load figure[id^='members-load-load-aware-']",
}


def main(report: str) -> None:
    binary = find_chromium()
    if binary is None:
        raise SystemExit("no Chromium on PATH (Debian: apt-get install -y chromium)")
    with tempfile.TemporaryDirectory() as profile:
        browser = Chromium(binary, profile)
        try:
            browser.open(Path(report).resolve().as_uri(), width=1280, height=900)
            for name, selector in PICTURES.items():
                box = browser.evaluate(f"(() => {{ const r = document.querySelector({selector!r})"
                                       ".getBoundingClientRect(); return [r.x, r.y + scrollY, r.width, r.height]; })()")
                x, y, w, h = box
                (HERE / name).write_bytes(browser.screenshot(clip={"x": x, "y": y, "width": w, "height": h}, scale=1))
                print(f"{HERE / name}: {w:.0f} x {h:.0f}")
            if browser.errors:
                raise SystemExit(f"the page reported errors: {browser.errors}")
        finally:
            browser.close()


if __name__ == "__main__":
    main(sys.argv[1])
