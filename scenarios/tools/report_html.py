#!/usr/bin/env python3
"""The HTML report of a matrix run: results/<run>/index.html (issue 15).

One self-contained file (inline CSS and JS, no network: a Content-Security-
Policy allows only this file's own script and style, by hash), opened from
file:// or a CI artifact. A heatmap (kernels across, scenario cells down, one
colour per outcome, false greens striped and listed first), per-cell details
on click or Enter, per-kernel facts, the run's header, filters by outcome,
kernel and scenario, and the comparison with a base run when one is given.

Everything that comes from a run (cell ids, reasons, reports, guest files)
is hostile data: the markup built here escapes every value
(html.escape, quote=True; attribute values always double-quoted; links only
relative, under cells/), and the per-cell data travels as JSON inside a
non-executed <script type="application/json"> with `<`, `>` and `&`
escaped, which the page's script only ever puts into the DOM as text.

    report_html.py RUN_DIR [--base BASE_RUN_DIR]   (re)write RUN_DIR/index.html

Python 3 standard library only.
"""

import base64
import hashlib
import html
import json
import os
import sys
import urllib.parse

# Per cell, at most this many of the report's events go into the page (a
# load scenario has thousands; report.json keeps them all, and is linked).
MAX_EVENTS = 40
# A cell file larger than this is not read into the page (a hostile
# supervisor may write anything): the page says so and links it.
MAX_READ = 4 << 20
FILE_LINKS = ("cell.json", "console.log", "report.json", "run-vm.log", "result.raw",
              "qemu.stderr")

CSS = """
:root{font:14px/1.35 system-ui,sans-serif;color:#111;background:#fafafa}
body{margin:0 1em 2em}
h1{font-size:1.4em;margin:.5em 0 .2em}
h2{font-size:1.1em;margin:1.2em 0 .3em}
code,.mono{font-family:ui-monospace,monospace;font-size:.92em;word-break:break-all}
table{border-collapse:collapse}
th,td{padding:2px 6px;text-align:left;vertical-align:top}
.kv th{font-weight:600;white-space:nowrap;padding-right:1em}
.kern td,.kern th,.changes td,.changes th{border-bottom:1px solid #ddd}
#layout{display:flex;gap:1em;align-items:flex-start}
#mapwrap{flex:1 1 auto;overflow:auto;max-height:80vh;border:1px solid #ccc;background:#fff}
#heatmap th.k{position:sticky;top:0;background:#eee;writing-mode:horizontal-tb;z-index:1}
#heatmap th.r{font-weight:400;white-space:nowrap;font-family:ui-monospace,monospace;
  font-size:.85em;position:sticky;left:0;background:#fff}
#heatmap td{padding:1px}
button.c{width:8.5em;height:1.8em;border:1px solid #0003;border-radius:3px;cursor:pointer;
  font:600 .8em system-ui,sans-serif;color:#fff;white-space:nowrap;overflow:hidden;padding:0 2px}
:where(button.c,.legend span){background:#616161}
button.c span{padding:0 3px;border-radius:2px}
button.o-false-green span,button.o-oracle-mismatch span{background:#fff;color:#b00000}
button.c:focus{outline:3px solid #000;outline-offset:1px}
button.c.sel{outline:3px solid #ff0;box-shadow:0 0 0 5px #000}
.o-ok{background:#2e7d32}
.o-skipped{background:#eceff1;color:#333!important;border:1px dashed #607d8b!important}
.o-mismatch{background:#c62828}
.o-false-green{background:repeating-linear-gradient(45deg,#d50000 0 6px,#ffd600 6px 12px);
  color:#000!important;border:2px solid #000!important}
.o-oracle-mismatch{background:repeating-linear-gradient(45deg,#6a1b9a 0 6px,#ffd600 6px 12px);
  color:#000!important;border:2px solid #000!important}
.o-precondition-error{background:#ef6c00}
.o-timeout{background:#6d4c41}
.o-supervisor-hang{background:repeating-linear-gradient(45deg,#6d4c41 0 6px,#ffd600 6px 12px);
  color:#000!important;border:2px solid #000!important}
.o-panic{background:#000}
.o-boot-fail{background:#455a64}
.o-infra-error{background:#1565c0}
.o-not-run{background:#9e9e9e}
.ch-regressed{box-shadow:inset 0 0 0 3px #fff,inset 0 0 0 5px #d50000}
.ch-improved{box-shadow:inset 0 0 0 3px #fff}
.legend span{display:inline-block;padding:1px 6px;margin:2px;border-radius:3px;color:#fff;
  font-size:.85em}
.legend .o-false-green,.legend .o-oracle-mismatch{text-shadow:0 0 3px #fff,0 0 3px #fff,0 0 3px #fff}
#loud{border:4px solid #d50000;background:#fff3f3;padding:.4em .8em;margin:.8em 0}
#loud h2{color:#b00;margin-top:.2em}
#loud ul,#notok{max-height:16em;overflow:auto}
#filters{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start;margin:.6em 0}
fieldset{border:1px solid #ccc;padding:.2em .6em}
fieldset label{margin-right:.6em;white-space:nowrap}
#details{flex:0 0 34em;max-width:45vw;position:sticky;top:.5em;max-height:92vh;overflow:auto;
  border:1px solid #ccc;background:#fff;padding:.4em .8em}
#details h3{margin:.2em 0;font-size:1em;word-break:break-all}
#details table{font-size:.9em}
.bad{color:#b00;font-weight:600}
.hidden{display:none!important}
.muted{color:#666}
"""

JS = r"""
"use strict";
(function(){
var data=JSON.parse(document.getElementById("run-data").textContent);
var cells=data.cells;
var buttons=Array.prototype.slice.call(document.querySelectorAll("button.c"));
var details=document.getElementById("details");
var selected=null;
function el(tag,text,cls){var e=document.createElement(tag);
  if(text!==undefined&&text!==null)e.textContent=String(text);if(cls)e.className=cls;return e;}
function kv(tbl,k,v){var tr=el("tr");tr.appendChild(el("th",k));var td=el("td");
  if(v instanceof Node)td.appendChild(v);else td.textContent=(v===null||v===undefined)?"-":String(v);
  tr.appendChild(td);tbl.appendChild(tr);}
function link(href,text){if(typeof href!=="string"||href.indexOf("cells/")!==0||
  href.indexOf("..")>=0)return el("span",text);var a=el("a",text);a.href=href;return a;}
function show(i){
  var c=cells[i];if(!c)return;
  if(selected)selected.classList.remove("sel");
  selected=document.querySelector('button.c[data-i="'+i+'"]');
  if(selected)selected.classList.add("sel");
  while(details.firstChild)details.removeChild(details.firstChild);
  details.appendChild(el("h3",c.cell));
  var t=el("table","","kv");t.id="d-table";
  var o=el("span",c.outcome,(c.outcome==="ok"||c.outcome==="skipped")?"":"bad");
  o.id="d-outcome";
  kv(t,"outcome",o);
  kv(t,"expected",c.expected);kv(t,"why",c.expected_why);kv(t,"from",c.expected_from);
  kv(t,"got",c.got);kv(t,"supervisor exit",c.supervisor_exit);kv(t,"reason",c.reason);
  if(c.change)kv(t,"since base",c.change);
  kv(t,"kernel",c.kernel+" "+(c.kernel_version||""));
  kv(t,"accelerator",(c.accelerator||"-")+(c.accelerator_reason?" ("+c.accelerator_reason+")":""));
  kv(t,"boot / run / wall s",[c.boot_s,c.run_s,c.wall_s].map(function(x){return x===null||x===undefined?"-":x;}).join(" / "));
  var rr=el("code",c.rerun);rr.id="d-rerun";kv(t,"rerun",rr);
  if(c.runner_rerun)kv(t,"run-vm.sh",el("code",c.runner_rerun));
  if(c.splats&&c.splats.length)kv(t,"splats",c.splats.join("\n"));
  details.appendChild(t);
  var links=el("p");links.appendChild(el("b","files: "));
  (c.files||[]).forEach(function(f){links.appendChild(link(f[1],f[0]));links.appendChild(document.createTextNode(" "));});
  if(!(c.files||[]).length)links.appendChild(el("span","none in the run directory","muted"));
  details.appendChild(links);
  var r=c.report;
  details.appendChild(el("h3","supervisor report"));
  if(!r||r.error){details.appendChild(el("p",r?r.error:"no report.json","muted"));}
  else{var rt=el("table","","kv");kv(rt,"verdict",r.verdict);kv(rt,"reason",r.reason);
    kv(rt,"complete",r.complete);
    Object.keys(r.counts||{}).forEach(function(k){kv(rt,k,r.counts[k]);});
    if(r.probe)kv(rt,"probe",Object.keys(r.probe).map(function(k){return k+"="+r.probe[k];}).join(" "));
    details.appendChild(rt);
    var ev=el("table","","kv");ev.appendChild((function(){var tr=el("tr");
      ["bucket","syscall","dest","reason","action","errno","mechanism"].forEach(function(h){tr.appendChild(el("th",h));});return tr;})());
    (r.events||[]).forEach(function(e){var tr=el("tr");
      [e.bucket,e.syscall,e.dest,e.reason,e.action,e.errno,e.mechanism].forEach(function(v){tr.appendChild(el("td",v===null||v===undefined?"":v));});
      ev.appendChild(tr);});
    details.appendChild(el("p","events ("+(r.events||[]).length+" of "+r.events_total+")"));
    details.appendChild(ev);}
  details.appendChild(el("h3","oracle"));
  details.appendChild(el("pre",c.oracle?JSON.stringify(c.oracle,null,1):"no oracle facts"));
  details.appendChild(el("h3","features read in the guest"));
  var ft=el("table","","kv");
  Object.keys(c.features||{}).forEach(function(k){var f=c.features[k]||{};
    kv(ft,k,(f.available?"yes":"NO")+(f.detail?" ("+f.detail+")":""));});
  details.appendChild(ft);
  details.appendChild(el("h3","preconditions"));
  var pt=el("table","","kv");
  (c.preconditions||[]).forEach(function(p){kv(pt,(p.status||"")+" "+(p.name||""),p.detail);});
  details.appendChild(pt);
  details.classList.remove("hidden");
  if(location.hash!=="#"+encodeURIComponent(c.cell))
    history.replaceState(null,"","#"+encodeURIComponent(c.cell));
}
buttons.forEach(function(b){b.addEventListener("click",function(){show(+b.getAttribute("data-i"));});});
// Filters
var fo=document.querySelectorAll("#f-outcome input"),fk=document.querySelectorAll("#f-kernel input");
var fs=document.getElementById("f-scenario"),fch=document.getElementById("f-changed");
var shown=document.getElementById("shown");
function glob(p){var s="";for(var i=0;i<p.length;i++){var ch=p[i];
  if(ch==="*")s+=".*";else if(ch==="?")s+=".";else s+=ch.replace(/[.+^${}()|[\]\\]/g,"\\$&");}
  return new RegExp(p.indexOf("*")>=0||p.indexOf("?")>=0?"^"+s+"$":s);}
function apply(){
  var outs={},ks={};
  Array.prototype.forEach.call(fo,function(i){if(i.checked)outs[i.value]=1;});
  Array.prototype.forEach.call(fk,function(i){if(i.checked)ks[i.value]=1;});
  var q=fs.value.trim(),re=null;try{re=q?glob(q):null;}catch(e){re=null;}
  var n=0;
  buttons.forEach(function(b){var c=cells[+b.getAttribute("data-i")];
    var ok=outs[c.outcome]&&ks[c.kernel]&&(!re||re.test(c.scenario_cell)||re.test(c.cell))&&
      (!fch||!fch.checked||c.change);
    b.classList.toggle("hidden",!ok);if(ok)n++;});
  document.querySelectorAll("#heatmap tbody tr").forEach(function(tr){
    tr.classList.toggle("hidden",!tr.querySelector("button.c:not(.hidden)"));});
  document.querySelectorAll("#heatmap th.k").forEach(function(th){
    th.classList.toggle("hidden",!ks[th.getAttribute("data-kernel")]);});
  document.querySelectorAll("#heatmap td[data-kernel]").forEach(function(td){
    td.classList.toggle("hidden",!ks[td.getAttribute("data-kernel")]);});
  shown.textContent=n+" of "+cells.length+" cells shown";
}
Array.prototype.forEach.call(fo,function(i){i.addEventListener("change",apply);});
Array.prototype.forEach.call(fk,function(i){i.addEventListener("change",apply);});
fs.addEventListener("input",apply);if(fch)fch.addEventListener("change",apply);
// Arrow keys move between visible cells of the heatmap; Escape closes details.
document.getElementById("heatmap").addEventListener("keydown",function(ev){
  var b=ev.target;if(!b.classList||!b.classList.contains("c"))return;
  var td=b.parentNode,tr=td.parentNode,col=Array.prototype.indexOf.call(tr.children,td),next=null;
  function vis(x){return x&&!x.classList.contains("hidden")&&!(x.parentNode&&x.parentNode.classList.contains("hidden"));}
  if(ev.key==="ArrowRight"||ev.key==="ArrowLeft"){var sib=td;
    do{sib=ev.key==="ArrowRight"?sib.nextElementSibling:sib.previousElementSibling;
      next=sib&&sib.querySelector("button.c");}while(sib&&!vis(next));}
  else if(ev.key==="ArrowDown"||ev.key==="ArrowUp"){var r=tr;
    do{r=ev.key==="ArrowDown"?r.nextElementSibling:r.previousElementSibling;
      next=r&&r.children[col]&&r.children[col].querySelector("button.c");}while(r&&(r.classList.contains("hidden")||!vis(next)));}
  else return;
  if(next&&vis(next)){next.focus();ev.preventDefault();}});
document.addEventListener("keydown",function(ev){if(ev.key==="Escape"){details.classList.add("hidden");
  if(selected){selected.classList.remove("sel");selected.focus();}}});
document.querySelectorAll("button.jump").forEach(function(b){b.addEventListener("click",function(){
  var i=+b.getAttribute("data-i");show(i);var t=document.querySelector('button.c[data-i="'+i+'"]');if(t)t.focus();});});
apply();
// #CELL-ID opens that cell (a link someone pasted); a malformed one is ignored.
if(location.hash.length>1){var want=null;try{want=decodeURIComponent(location.hash.slice(1));}catch(e){}
  for(var i=0;want!==null&&i<cells.length;i++)if(cells[i].cell===want){show(i);break;}}
})();
"""


def e(v):
    """Escaped text for HTML content or a double-quoted attribute."""
    return html.escape("" if v is None else str(v), quote=True)


def _csp_hash(text):
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def _safe_reldir(d):
    """A cell's directory relative to the run, or None when it is not a
    plain path under cells/ (a summary naming /etc or ../ gets no links)."""
    if not isinstance(d, str):
        return None
    n = os.path.normpath(d)
    if os.path.isabs(n) or n.startswith("..") or not n.startswith("cells" + os.sep):
        return None
    return n


def _href(*parts):
    return "/".join(urllib.parse.quote(p, safe="") for p in parts)


def _read_json(path):
    """(object, None) or (None, why)."""
    try:
        if os.path.getsize(path) > MAX_READ:
            return None, f"{os.path.basename(path)} is over {MAX_READ} bytes: not read"
        with open(path, encoding="utf-8", errors="replace") as f:
            return json.load(f), None
    except FileNotFoundError:
        return None, f"no {os.path.basename(path)}"
    except (OSError, ValueError) as x:
        return None, f"{os.path.basename(path)} unreadable: {x}"


def _report_facts(path):
    rep, why = _read_json(path)
    if rep is None:
        return {"error": why}
    if not isinstance(rep, dict):
        return {"error": "report.json is not an object"}
    events = rep.get("events") if isinstance(rep.get("events"), list) else []
    keep = ("bucket", "syscall", "dest", "reason", "action", "errno", "mechanism")
    return {"verdict": rep.get("verdict"), "reason": rep.get("reason"),
            "complete": rep.get("complete"),
            "counts": rep.get("counts") if isinstance(rep.get("counts"), dict) else {},
            "probe": rep.get("probe") if isinstance(rep.get("probe"), dict) else None,
            "events": [{k: ev.get(k) for k in keep} for ev in events[:MAX_EVENTS]
                       if isinstance(ev, dict)],
            "events_total": len(events)}


def cell_data(rdir, c, change):
    """The page's record of one cell: the summary's fields, plus what its
    directory holds (the report's buckets and events, the oracle's facts,
    links to its files)."""
    keys = ("cell", "scenario_cell", "kernel", "kernel_version", "outcome", "expected",
            "expected_why", "expected_from", "got", "supervisor_exit", "reason", "boot_s",
            "run_s", "wall_s", "accelerator", "accelerator_reason", "features",
            "preconditions", "splats", "rerun", "runner_rerun")
    out = {k: c.get(k) for k in keys}
    out["change"] = change
    out["files"], out["oracle"], out["report"] = [], None, {"error": "no cell directory"}
    rel = _safe_reldir(c.get("dir"))
    if rel is None:
        return out
    d = os.path.join(rdir, rel)
    parts = rel.split(os.sep)
    for name in FILE_LINKS:
        if os.path.isfile(os.path.join(d, name)):
            out["files"].append([name, _href(*parts, name)])
    gdir = os.path.join(d, "guest")
    if os.path.isdir(gdir):
        for name in sorted(os.listdir(gdir)):
            out["files"].append(["guest/" + name, _href(*parts, "guest", name)])
    cj, _ = _read_json(os.path.join(d, "cell.json"))
    if isinstance(cj, dict):
        out["oracle"] = cj.get("oracle")
    out["report"] = _report_facts(os.path.join(d, "report.json"))
    return out


def _kv(rows):
    return "<table class=\"kv\">" + "".join(
        f"<tr><th>{e(k)}</th><td>{v}</td></tr>" for k, v in rows) + "</table>"


def _header(s):
    acc = s.get("accelerator") or {}
    canary = "; ".join(f"{c.get('accelerator')}: {'ok' if c.get('ok') else 'failed'} "
                       f"({c.get('detail')}, {c.get('seconds')}s)"
                       for c in acc.get("canary") or [] if isinstance(c, dict))
    sh = s.get("shard") or {}
    commit = sh.get("commit") or {}
    if sh.get("merged"):
        shard = "merged from " + ", ".join(f"{m.get('shard')} ({m.get('run_id')}, "
                                           f"{m.get('cells')} cells)"
                                           for m in s.get("merged_from") or [])
    elif sh:
        shard = f"{sh.get('index')}/{sh.get('count')} of {len(sh.get('selection') or [])} cells"
    else:
        shard = "-"
    counts = s.get("counts") or {}
    sup = s.get("supervisor") or {}
    filt = s.get("filters") or {}
    rows = [
        ("supervisor", f"<code>{e(sup.get('path'))}</code><br>sha256 "
                       f"<code id=\"sup-sha\">{e(sup.get('sha256'))}</code>"),
        ("commit", f"<code>{e(commit.get('head'))}</code>"
                   + (" (uncommitted changes)" if commit.get("dirty") else "")),
        ("shard", e(shard)),
        ("filters", f"KERNELS=<code>{e(filt.get('kernels'))}</code> "
                    f"SCENARIOS=<code>{e(filt.get('scenarios'))}</code>"
                    + (f" EXTRA_SCENARIOS=<code>{e(s.get('extra_scenarios'))}</code>"
                       if s.get("extra_scenarios") else "")),
        ("accelerator", f"<b id=\"accel\">{e(acc.get('accelerator'))}</b> "
                        f"(ACCEL={e(acc.get('mode'))}): {e(acc.get('reason'))}"
                        + (f"<br><span class=\"muted\">canary: {e(canary)}</span>"
                           if canary else "")),
        ("started", e(s.get("started"))),
        ("wall", f"cells {e(s.get('cells_wall_s'))} s, total {e(s.get('total_wall_s'))} s, "
                 f"{e(s.get('jobs'))} VMs at once; wall/floor {e(s.get('wall_over_floor'))}"
                 + (f" ({e(s.get('floor_note'))})" if s.get("floor_note") else "")),
        ("counts", e(", ".join(f"{n} {o}" for o, n in counts.items() if n))
         + f" of {len(s.get('cells') or [])} cells"),
    ]
    return _kv(rows)


def _kernels(s, cells):
    rows = []
    for k, info in (s.get("kernels") or {}).items():
        info = info or {}
        seen = {}
        for c in cells:
            if c.get("kernel") == k:
                a = c.get("accelerator") or "not recorded (no cell.json)"
                seen[a] = seen.get(a, 0) + 1
        accs = [f"{a} ({n} cells)" for a, n in sorted(seen.items())]
        fig = info.get("features_in_guest") or {}
        feats = []
        for name, f in (fig.get("features") or {}).items():
            vals = f.get("values") or []
            if f.get("agree") and vals:
                v = vals[0]
                txt = name + ("=yes" if v.get("available") == "yes" else
                              f"=NO({v.get('detail')})" if v.get("available") == "no" else
                              "=not reported")
                cls = "" if v.get("available") == "yes" else "bad"
            else:
                txt = name + "=DIFFERS[" + ", ".join(f"{v.get('available')}({v.get('detail')})"
                                                     f" x{v.get('cells')}" for v in vals) + "]"
                cls = "bad"
            feats.append(f"<span class=\"{cls}\">{e(txt)}</span>")
        rows.append(
            f"<tr data-kernel=\"{e(k)}\"><th>{e(k)}</th><td>{e(info.get('version'))}<br>"
            f"<span class=\"muted\">{e(info.get('release'))}</span></td>"
            f"<td><code>{e(info.get('sha256'))}</code><br><span class=\"muted\">"
            f"{e(info.get('description'))} ({e(info.get('machine'))})</span></td>"
            f"<td>{e(', '.join(accs))}</td><td>{' '.join(feats)} <span class=\"muted\">"
            f"[{e(fig.get('cells_read'))}/{e(fig.get('cells'))} cells]</span></td></tr>")
    return ("<table class=\"kern\" id=\"kernels\"><tr><th>kernel</th><th>version</th>"
            "<th>sha256</th><th>accelerator</th><th>features read in its guests</th></tr>"
            + "".join(rows) + "</table>")


def _diff(d, index):
    if not d:
        return ""
    rows = []
    for x in sorted(d["changed"], key=lambda x: (x["kind"] != "regressed", x["cell"])):
        i = index.get(x["cell"])
        name = (f"<button class=\"jump\" data-i=\"{i}\">{e(x['cell'])}</button>"
                if i is not None else e(x["cell"]))
        rows.append(f"<tr class=\"ch-row\" data-kind=\"{e(x['kind'])}\"><td>{e(x['kind'])}</td>"
                    f"<td>{name}</td><td>{e(x['from'])} &rarr; {e(x['to'])}</td></tr>")
    for x in d["added"]:
        rows.append(f"<tr class=\"ch-row\" data-kind=\"{e(x['kind'])}\"><td>added</td>"
                    f"<td>{e(x['cell'])}</td><td>{e(x['outcome'])}</td></tr>")
    for x in d["gone"]:
        rows.append(f"<tr class=\"ch-row\" data-kind=\"gone\"><td>gone</td><td>{e(x['cell'])}"
                    f"</td><td>was {e(x['outcome'])}</td></tr>")
    for x in d["expectation"]:
        rows.append(f"<tr><td>expectation</td><td>{e(x['cell'])}</td><td>{e(x['from'])} "
                    f"&rarr; {e(x['to'])}</td></tr>")
    for x in d["features"]:
        rows.append(f"<tr><td>features</td><td>{e(x['kernel'])} {e(x['feature'])}</td>"
                    f"<td>{e(x['from'])} &rarr; {e(x['to'])}</td></tr>")
    for x in d["kernel_sha"]:
        rows.append(f"<tr><td>kernel sha256</td><td>{e(x['kernel'])}</td><td><code>"
                    f"{e(x['from'])}</code> &rarr; <code>{e(x['to'])}</code></td></tr>")
    if d["supervisor"]:
        rows.append(f"<tr><td>supervisor sha256</td><td></td><td><code>"
                    f"{e(d['supervisor']['from'])}</code> &rarr; <code>"
                    f"{e(d['supervisor']['to'])}</code></td></tr>")
    head = (f"<h2 id=\"diff\">Since base {e(d['base'])}: <span class=\""
            f"{'bad' if d['regressions'] else ''}\" id=\"regressions\">{d['regressions']} "
            f"regressed</span></h2>")
    if not rows:
        return head + "<p>no difference in cells, outcomes, expectations, features or sha256s</p>"
    return head + "<table class=\"changes\">" + "".join(rows) + "</table>"


def render(rdir, summary, outcomes, diff=None):
    """The page (a str) for the run in `rdir` described by `summary`;
    `outcomes` is the ordered outcome list (contract.OUTCOMES); `diff` is
    matrix_diff.diff(base, summary) or None."""
    cells = summary.get("cells") or []
    by_change = (diff or {}).get("by_cell", {})
    data = [cell_data(rdir, c, by_change.get(c.get("cell"))) for c in cells]
    index = {c.get("cell"): i for i, c in enumerate(cells)}
    kernels = list(summary.get("kernels") or {})
    for c in cells:
        if c.get("kernel") not in kernels:
            kernels.append(c.get("kernel"))
    rows, by = [], {}
    for i, c in enumerate(cells):
        if c.get("scenario_cell") not in by:
            rows.append(c.get("scenario_cell"))
            by[c.get("scenario_cell")] = {}
        by[c.get("scenario_cell")][c.get("kernel")] = i
    short = {"ok": "ok", "skipped": "skip", "false-green": "FALSE GREEN",
             "oracle-mismatch": "ORACLE", "mismatch": "MISMATCH",
             "precondition-error": "PRECOND", "timeout": "TIMEOUT", "panic": "PANIC",
             "supervisor-hang": "HANG",
             "boot-fail": "BOOT-FAIL", "infra-error": "INFRA", "not-run": "NOT RUN"}
    body = []
    for r in rows:
        tds = []
        for k in kernels:
            i = by[r].get(k)
            if i is None:
                tds.append(f"<td data-kernel=\"{e(k)}\" class=\"none\">-</td>")
                continue
            c = cells[i]
            o = c.get("outcome")
            ch = by_change.get(c.get("cell"))
            cls = f"c o-{o}" + (f" ch-{ch}" if ch in ("regressed", "improved") else "")
            tds.append(
                f"<td data-kernel=\"{e(k)}\"><button type=\"button\" class=\"{e(cls)}\" "
                f"data-i=\"{i}\" data-cell=\"{e(c.get('cell'))}\" data-outcome=\"{e(o)}\""
                + (f" data-change=\"{e(ch)}\"" if ch else "")
                + f" title=\"{e(c.get('cell'))}: {e(o)}\" aria-label=\"{e(c.get('cell'))}: "
                f"{e(o)}\"><span>{e(short.get(o, o))}</span></button></td>")
        body.append(f"<tr data-scenario=\"{e(r)}\"><th scope=\"row\" class=\"r\">{e(r)}</th>"
                    + "".join(tds) + "</tr>")
    present = [o for o in outcomes if any(c.get("outcome") == o for c in cells)]
    present += sorted({c.get("outcome") for c in cells} - set(outcomes), key=str)
    f_out = "".join(f"<label><input type=\"checkbox\" value=\"{e(o)}\" checked> "
                    f"<span class=\"legend\"><span class=\"o-{e(o)}\">{e(o)}</span></span> "
                    f"{sum(c.get('outcome') == o for c in cells)}</label>" for o in present)
    f_k = "".join(f"<label><input type=\"checkbox\" value=\"{e(k)}\" checked> {e(k)}</label>"
                  for k in kernels)
    loud = [i for i, c in enumerate(cells) if c.get("outcome") in ("false-green",
                                                                   "oracle-mismatch")]
    loud_html = ""
    if loud:
        loud_html = (f"<section id=\"loud\"><h2>{len(loud)} FALSE GREEN / ORACLE MISMATCH: "
                     "a verdict that says things are fine where they are not</h2><ul>"
                     + "".join(f"<li><button class=\"jump\" data-i=\"{i}\">"
                               f"{e(cells[i].get('cell'))}</button> {e(cells[i].get('outcome'))}"
                               f": expected {e(cells[i].get('expected'))}, got "
                               f"{e(cells[i].get('got'))}: {e(cells[i].get('reason'))}</li>"
                               for i in loud) + "</ul></section>")
    resets = summary.get("reset_failures") or []
    reset_html = ""
    if resets:
        reset_html = (f"<section id=\"resets\"><h2>{len(resets)} RESET FAILED: isolation "
                      "between cells not proven (the cells after each ran again in fresh "
                      "boots)</h2><ul>" + "".join(
                          f"<li>{e(r.get('kernel'))}, batch {e(r.get('batch'))}, after "
                          f"{e(r.get('after'))}: <code>{e(r.get('detail'))}</code></li>"
                          for r in resets) + "</ul></section>")
    bad = [i for i, c in enumerate(cells) if c.get("outcome") not in ("ok", "skipped")]
    bad_html = ("<h2>Not ok</h2><ul id=\"notok\">" + "".join(
        f"<li><button class=\"jump\" data-i=\"{i}\">{e(cells[i].get('cell'))}</button> "
        f"{e(cells[i].get('outcome'))}: {e(cells[i].get('reason'))}<br><code>"
        f"{e(cells[i].get('rerun'))}</code></li>" for i in bad) + "</ul>") if bad else ""
    blob = json.dumps({"cells": data}, ensure_ascii=True, separators=(",", ":"))
    blob = blob.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    changed_filter = ("<label><input type=\"checkbox\" id=\"f-changed\"> only cells that "
                      "changed since base</label>") if diff else ""
    csp = (f"default-src 'none'; script-src {_csp_hash(JS)}; style-src {_csp_hash(CSS)}; "
           "img-src 'none'; base-uri 'none'; form-action 'none'")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{e(csp)}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>matrix {e(summary.get('run_id'))}</title>
<style>{CSS}</style></head>
<body>
<h1>egress matrix run <code id="run-id">{e(summary.get('run_id'))}</code></h1>
{_header(summary)}
{loud_html}
{reset_html}
{_diff(diff, index)}
<h2>Kernels</h2>
{_kernels(summary, cells)}
<h2>Cells</h2>
<div id="filters" role="search">
<fieldset id="f-outcome"><legend>outcome</legend>{f_out}</fieldset>
<fieldset id="f-kernel"><legend>kernel</legend>{f_k}</fieldset>
<fieldset><legend>scenario</legend><label>name or glob <input type="search" id="f-scenario"
 placeholder="starter-*.ptrace_scope=2,*"></label> {changed_filter}</fieldset>
<p id="shown" aria-live="polite"></p>
</div>
<div id="layout">
<div id="mapwrap"><table id="heatmap"><thead><tr><th>scenario cell</th>{''.join(
        f'<th class="k" data-kernel="{e(k)}">{e(k)}</th>' for k in kernels)}</tr></thead>
<tbody>{''.join(body)}</tbody></table></div>
<section id="details" class="hidden" aria-live="polite" aria-label="cell details"></section>
</div>
{bad_html}
<script type="application/json" id="run-data">{blob}</script>
<script>{JS}</script>
</body></html>
"""


def write(rdir, summary, outcomes, diff=None):
    """Write rdir/index.html (atomically: a reader never sees half a page);
    returns its path. OSError propagates."""
    page = render(rdir, summary, outcomes, diff)
    path = os.path.join(rdir, "index.html")
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(tmp, path)
    return path


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run")
    ap.add_argument("--base", default="")
    opts = ap.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import matrix_diff  # noqa: E402
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "initramfs", "host"))
    import contract  # noqa: E402 - OUTCOMES, one copy
    try:
        s = matrix_diff.load(opts.run)
        d = matrix_diff.diff(matrix_diff.load(opts.base), s) if opts.base else None
    except matrix_diff.DiffError as x:
        print(f"report_html: {x}", file=sys.stderr)
        return 2
    print(write(os.path.abspath(opts.run), s, contract.OUTCOMES, d))
    return 0


if __name__ == "__main__":
    sys.exit(main())
