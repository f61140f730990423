#!/usr/bin/env python3
"""The HTML report in a real browser (Debian's chromium, headless, driven over
the DevTools protocol by cdp.py): the matrix self-test's fake run (with its
false green), a report of hostile values, a 1,000-cell report, and the newest
real vm-smoke run in results/ (skipped, with the reason, when there is none:
`make test` runs vm-smoke first). Each page is opened from file://; the DOM is
checked (every cell present with its outcome, false greens flagged), a cell
is clicked and its details checked, the filters are driven from the keyboard,
and a screenshot is saved as index.png beside each index.html.

    python3 scenarios/tools/test_report_browser.py [--run DIR]

Needs chromium (make report-browser-test installs it) and, for the fake run,
what test_report.py needs. Ends with `N passed, N failed, N skipped`.
"""

import json
import os
import shutil
import sys
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cdp  # noqa: E402
import matrix  # noqa: E402
import report_html  # noqa: E402
import test_report as TR  # noqa: E402 - the fake runner and the hostile summary

TOP = os.path.abspath(os.path.join(HERE, "..", ".."))
BUILD = os.environ.get("BUILD") or os.path.join(TOP, "build")
OUT = os.path.join(BUILD, "report-browser-test")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")

RESULTS = []


class Skip(Exception):
    pass


def check(name):
    def wrap(fn):
        RESULTS.append((name, fn))
        return fn
    return wrap


def dom_cells(b):
    return b.js("Array.prototype.map.call(document.querySelectorAll('button.c'),function(x){"
                "return [x.getAttribute('data-cell'),x.getAttribute('data-outcome'),"
                "x.className];})")


def assert_every_cell(b, summ):
    got = dom_cells(b)
    want = {c["cell"]: c["outcome"] for c in summ["cells"]}
    assert len(got) == len(want), (len(got), len(want))
    for cid, o, cls in got:
        assert want.get(cid) == o, (cid, o, want.get(cid))
        assert f"o-{o}" in cls.split(), (cid, cls)
    loud = sorted(c["cell"] for c in summ["cells"] if c["outcome"] in ("false-green",
                                                                      "oracle-mismatch"))
    flagged = sorted(b.js("Array.prototype.map.call(document.querySelectorAll("
                          "'#loud button.jump'),function(x){return x.textContent;})") or [])
    assert flagged == loud, (flagged, loud)
    return got


def open_details(b, summ, cid):
    c = next(x for x in summ["cells"] if x["cell"] == cid)
    b.click(f"button.c[data-cell={json.dumps(cid)}]")
    vis = b.js("!document.getElementById('details').classList.contains('hidden')")
    assert vis, "details not shown after a click"
    assert b.js("document.querySelector('#details h3').textContent") == cid
    assert b.js("document.getElementById('d-outcome').textContent") == c["outcome"]
    assert b.js("document.getElementById('d-rerun').textContent") == c["rerun"]
    text = b.js("document.getElementById('details').textContent")
    assert c["expected_why"] in text and c["expected_from"] in text, text[:400]
    return text


def fake_run():
    """The fake run (with a base run to compare against), once; kept under
    build/report-browser-test/fake/ with its screenshot."""
    if "d" not in TR.TMP:
        os.makedirs(OUT, exist_ok=True)
        shutil.rmtree(os.path.join(OUT, "fake"), ignore_errors=True)
        TR.TMP["d"] = os.path.join(OUT, "fake")
        os.makedirs(TR.TMP["d"])
        with open(os.path.join(TR.TMP["d"], "fake-run-vm"), "w", encoding="utf-8") as f:
            f.write(TR.FAKE)
        os.chmod(os.path.join(TR.TMP["d"], "fake-run-vm"), 0o755)
    base = TR.fake_run("base")[2]
    return TR.fake_run("lying", mode="lying", base=base)


@check("fake_run_report_shows_every_cell_and_flags_the_false_green")
def fake_report(b):
    rc, _, d = fake_run()
    summ = TR.summary(d)
    b.open(os.path.join(d, "index.html"))
    assert_every_cell(b, summ)
    assert "false-green" in {c["outcome"] for c in summ["cells"]}
    fg = next(c["cell"] for c in summ["cells"] if c["outcome"] == "false-green")
    text = open_details(b, summ, fg)
    assert "supervisor report" in text and "fake console" not in text
    # The files are links into the cell's directory, and they resolve.
    href = b.js("(function(){var a=[].filter.call(document.querySelectorAll('#details a'),"
                "function(x){return x.textContent==='console.log';})[0];return a&&a.href;})()")
    assert href and href.startswith("file://"), href
    path = urllib.parse.unquote(href[len("file://"):])
    assert os.path.isfile(path), path
    assert b.js("document.getElementById('regressions').textContent").endswith("regressed")
    b.screenshot(os.path.join(d, "index.png"))
    # A link to one cell (#ID, as the page sets it on a click) opens that cell.
    assert b.js("location.hash") == "#" + urllib.parse.quote(fg, safe="")
    b.events.clear()   # leave the page first: a same-page #link fires no load event
    b.call("Page.navigate", url="about:blank")
    b.wait_event("Page.loadEventFired")
    b.call("Page.navigate", url="file://" + os.path.join(d, "index.html") + "#" +
           urllib.parse.quote(fg, safe=""))
    b.wait_event("Page.loadEventFired")
    assert b.js("document.querySelector('#details h3').textContent") == fg


@check("filters_work_from_the_keyboard")
def keyboard(b):
    rc, _, d = fake_run()
    summ = TR.summary(d)
    b.open(os.path.join(d, "index.html"))
    total = len(summ["cells"])
    n_ok = sum(c["outcome"] == "ok" for c in summ["cells"])

    def shown():
        return b.js("document.querySelectorAll('button.c:not(.hidden)').length")
    assert shown() == total
    b.js("document.querySelector('#f-outcome input[value=\"ok\"]').focus()")
    b.key(" ", code="Space", text=" ")
    assert shown() == total - n_ok, (shown(), total, n_ok)
    assert b.js("document.getElementById('shown').textContent") == \
        f"{total - n_ok} of {total} cells shown"
    b.key(" ", code="Space", text=" ")
    b.js("document.getElementById('f-scenario').focus()")
    b.type_text("nodump")
    want = sum(c["scenario"] == "nodump" for c in summ["cells"])
    assert shown() == want, (shown(), want)
    b.js("var i=document.getElementById('f-scenario');i.value='';"
         "i.dispatchEvent(new Event('input'))")
    # Arrow keys move between cells; Enter opens the focused one; Escape closes.
    b.js("document.querySelector('button.c').focus()")
    first = b.js("document.activeElement.getAttribute('data-cell')")
    b.key("ArrowDown")
    second = b.js("document.activeElement.getAttribute('data-cell')")
    assert second and second != first, (first, second)
    b.key("Enter", text="\r")
    assert b.js("document.querySelector('#details h3').textContent") == second
    b.key("Escape")
    assert b.js("document.getElementById('details').classList.contains('hidden')")


@check("hostile_values_render_as_text_and_run_no_script")
def hostile(b):
    d = os.path.join(OUT, "hostile")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    s = TR.hostile_summary(d)
    report_html.write(d, s, matrix.OUTCOMES)
    b.open(os.path.join(d, "index.html"))
    assert b.js("typeof window.pwned") == "undefined"
    assert b.js("document.querySelectorAll('img').length") == 0
    assert b.js("document.getElementById('run-id').textContent") == TR.HOSTILE
    b.click("button.c")
    assert b.js("document.querySelector('#details h3').textContent") == s["cells"][0]["cell"]
    assert b.js("typeof window.pwned") == "undefined"
    assert b.js("document.querySelectorAll('#details img, #details script').length") == 0
    text = b.js("document.getElementById('details').textContent")
    assert text.count(TR.HOSTILE) >= 5, text[:300]
    b.screenshot(os.path.join(d, "index.png"))


@check("report_of_1000_cells_loads_and_filters_quickly")
def thousand(b):
    d = os.path.join(OUT, "big")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    outs = ("ok",) * 8 + ("skipped", "mismatch", "false-green", "timeout")
    kernels = [f"kernel-{k}" for k in range(10)]
    cells = [{"cell": f"scen-{i // 10}.axis={i % 7}+{kernels[i % 10]}",
              "scenario": f"scen-{i // 10}", "scenario_cell": f"scen-{i // 10}.axis={i % 7}",
              "kernel": kernels[i % 10], "outcome": outs[i % len(outs)], "expected": "fail",
              "expected_why": "why", "expected_from": "x.scenario:1", "got": "fail",
              "reason": "r", "rerun": "make matrix", "dir": f"cells/c{i}"}
             for i in range(1000)]
    s = {"run_id": "big", "kernels": {k: {"sha256": "0" * 64} for k in kernels},
         "counts": {}, "cells": cells}
    report_html.write(d, s, matrix.OUTCOMES)
    t0 = time.monotonic()
    b.open(os.path.join(d, "index.html"))
    load = time.monotonic() - t0
    assert b.js("document.querySelectorAll('button.c').length") == 1000
    t0 = time.monotonic()
    b.js("document.querySelector('#f-outcome input[value=\"ok\"]').click()")
    n = b.js("document.querySelectorAll('button.c:not(.hidden)').length")
    filt = time.monotonic() - t0
    assert n == sum(c["outcome"] != "ok" for c in cells), n
    assert load < 10 and filt < 2, (load, filt)
    print(f"     1000 cells: load {load:.2f}s, filter {filt:.2f}s, "
          f"{os.path.getsize(os.path.join(d, 'index.html')) // 1024} KiB")
    b.screenshot(os.path.join(d, "index.png"))


def newest_real_run():
    rdir = os.path.join(TOP, "results")
    runs = sorted(x for x in os.listdir(rdir) if x.startswith("vm-smoke-")) \
        if os.path.isdir(rdir) else []
    runs = [x for x in runs if os.path.isfile(os.path.join(rdir, x, "index.html"))]
    return os.path.join(rdir, runs[-1]) if runs else None


REAL = {}


@check("real_run_report_shows_every_cell_and_its_details")
def real(b):
    d = REAL.get("dir") or newest_real_run()
    if not d:
        raise Skip("no results/vm-smoke-*/index.html: run make vm-smoke first "
                   "(make test runs it before this suite)")
    summ = TR.summary(d)
    b.open(os.path.join(d, "index.html"))
    assert_every_cell(b, summ)
    c = summ["cells"][0]
    text = open_details(b, summ, c["cell"])
    for k in ("seccomp_notify", "oracle", "preconditions"):
        assert k in text, k
    if os.path.isfile(os.path.join(d, c["dir"], "report.json")):
        assert "verdict" in text and "events (" in text, text[:500]
    acc = (summ.get("accelerator") or {}).get("accelerator")
    assert b.js("document.getElementById('accel').textContent") == str(acc)
    b.screenshot(os.path.join(d, "index.png"))
    print(f"     {d}: {len(summ['cells'])} cells, screenshot {os.path.join(d, 'index.png')}")


def main(argv):
    if len(argv) == 2 and argv[0] == "--run":
        REAL["dir"] = os.path.abspath(argv[1])
    if not os.access(CHROMIUM, os.X_OK):
        print(f"FAIL: {CHROMIUM} missing (make report-browser-test installs Debian's chromium)")
        print("0 passed, 1 failed")
        return 1
    passed = failed = skipped = 0
    with cdp.Browser(CHROMIUM) as b:
        for name, fn in RESULTS:
            try:
                fn(b)
            except Skip as e:
                skipped += 1
                print(f"ok   {name} # SKIP {e}")
            except Exception as e:  # noqa: BLE001 - report and go on
                failed += 1
                print(f"FAIL {name}: {e!r}")
            else:
                passed += 1
                print(f"ok   {name}")
    print(f"screenshots: {OUT}/*/index.png" + (f", {REAL.get('dir')}" if REAL else ""))
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
