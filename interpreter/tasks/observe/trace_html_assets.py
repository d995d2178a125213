"""The HTML trace report's style sheet and script (inlined by :mod:`.trace_html`)."""

STYLE = """
:root { --bg: #fff; --fg: #1d2330; --dim: #6b7280; --line: #e5e7eb; --sel: #dbeafe;
  --model: #6366f1; --script: #f59e0b; --step: #10b981; --iteration: #0ea5e9; --loop: #0369a1;
  --task: #8b5cf6; --parallel: #ec4899; --run: #64748b; --attempt: #a5b4fc; --other: #94a3b8; --err: #dc2626; }
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 1em; align-items: baseline; padding: .6em 1em; border-bottom: 1px solid var(--line); }
h1 { font-size: 16px; margin: 0; } h2 { font-size: 13px; margin: .3em 0; color: var(--dim); text-transform: uppercase; }
#summary { color: var(--dim); }
#timeline-box { padding: .4em 1em; border-bottom: 1px solid var(--line); }
#axis { position: relative; height: 16px; color: var(--dim); font-size: 11px; }
#axis span { position: absolute; transform: translateX(-50%); }
#timeline { position: relative; overflow: hidden; }
.bar { position: absolute; height: 14px; border-radius: 2px; min-width: 2px; cursor: pointer;
  background: var(--other); opacity: .85; font-size: 10px; color: #fff; white-space: nowrap; overflow: hidden;
  padding: 0 2px; }
.bar:hover, .bar.selected { opacity: 1; outline: 2px solid var(--fg); }
.bar.error, .row.error .status { background: var(--err); }
main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1em; padding: 0 1em; }
/* narrow (a notebook cell): the details below the tree, which keeps room for span names */
@media (max-width: 1100px) { main { grid-template-columns: minmax(0, 1fr); } }
#tree .row { display: grid; grid-template-columns: 1fr 6em 6em 9em 30%; gap: .5em; align-items: center;
  padding: 1px 0; cursor: pointer; border-bottom: 1px solid #f3f4f6; }
#tree .row:hover { background: #f9fafb; } #tree .row.selected { background: var(--sel); }
.label { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.toggle { display: inline-block; width: 1.2em; text-align: center; color: var(--dim); }
.kind { display: inline-block; padding: 0 4px; border-radius: 3px; color: #fff; font-size: 11px; margin-right: 4px; }
.status { font-size: 11px; border-radius: 3px; padding: 0 4px; background: #e5e7eb; justify-self: start; }
.num { text-align: right; color: var(--dim); font-variant-numeric: tabular-nums; }
.track { position: relative; height: 8px; background: #f3f4f6; }
.track div { position: absolute; top: 0; height: 8px; background: var(--other); min-width: 1px; }
#details dl { display: grid; grid-template-columns: 7em 1fr; gap: .2em .6em; margin: 0; }
#details dt { color: var(--dim); } #details dd { margin: 0; }
pre { white-space: pre-wrap; word-break: break-word; background: #f8fafc; border: 1px solid var(--line);
  padding: .4em; margin: .2em 0 .6em; max-height: 24em; overflow: auto; font-size: 12px; }
#loops-box { padding: 0 1em 2em; }
table { border-collapse: collapse; width: 100%; margin-bottom: 1em; }
td, th { border-bottom: 1px solid var(--line); padding: 2px 6px; text-align: left; vertical-align: top; }
td.feedback { white-space: pre-wrap; }
td.ok { color: #047857; } td.bad { color: var(--err); }
.error-text { color: var(--err); }
"""

SCRIPT = r"""
"use strict";
const RUNS = JSON.parse(document.getElementById("trace-data").textContent);
const KINDS = ["model", "script", "step", "iteration", "loop", "task", "parallel", "run", "attempt"];
const TEXTS = [["system", "system"], ["prompt", "prompt"], ["response", "response"], ["feedback", "feedback"],
               ["output", "output"], ["stderr", "standard error"]];
let run = null, selected = null;
const open = new Set();

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
function colour(kind) { return "var(--" + (KINDS.includes(kind) ? kind : "other") + ")"; }
function seconds(s) {
  return s >= 10 ? s.toFixed(1) + " s" : s >= 1 ? s.toFixed(2) + " s" : (s * 1000).toFixed(1) + " ms";
}
function tokens(span) {
  const u = span.usage || {};
  return u.input_tokens === undefined ? "" : u.input_tokens + "→" + (u.output_tokens || 0);
}
function latest(spans) { return spans.reduce((m, s) => Math.max(m, s.end), 1e-9); }
function failed(span) { return !!span.error || span.status === "error" || span.status === "FAILED"; }

function choose(index) {
  run = RUNS[index];
  open.clear();
  run.spans.forEach((s, i) => { if (s.depth < 1) open.add(i); });  // the run open, the rest closed
  selected = null;
  summary(); timeline(); tree(); loops();
  details(null);
}

function summary() {
  const spans = run.spans, box = document.getElementById("summary");
  const total = latest(spans);
  const models = spans.filter(s => s.kind === "model");
  const used = models.reduce((n, s) => {
    const u = s.usage || {};
    return n + (u.input_tokens || 0) + (u.output_tokens || 0);
  }, 0);
  const errors = spans.filter(failed).length;
  box.textContent = seconds(total) + " · " + spans.length + " spans · " + models.length + " model calls · " +
    used + " tokens · " + errors + " with errors";
}

function timeline() {
  const box = document.getElementById("timeline"), axis = document.getElementById("axis");
  box.replaceChildren(); axis.replaceChildren();
  const spans = run.spans, total = latest(spans);
  const rows = new Map();  // "lane/depth" -> row number, lanes in order, depths within
  const keys = [...new Set(spans.map(s => s.lane + "/" + s.depth))];
  keys.sort((a, b) => { const [la, da] = a.split("/").map(Number), [lb, db] = b.split("/").map(Number);
                        return la - lb || da - db; });
  keys.forEach((k, i) => rows.set(k, i));
  box.style.height = (keys.length * 17 + 2) + "px";
  for (let t = 0; t <= 4; t++) {
    const mark = el("span", null, seconds(total * t / 4));
    mark.style.left = (t * 25) + "%";
    mark.style.transform = t === 0 ? "none" : t === 4 ? "translateX(-100%)" : "";
    axis.appendChild(mark);
  }
  const frag = document.createDocumentFragment();
  spans.forEach((s, i) => {
    const wide = (s.end - s.start) / total > 0.04;  // a label only where it can be read
    const bar = el("div", "bar" + (failed(s) ? " error" : ""), wide ? s.kind + " " + s.name : undefined);
    bar.dataset.span = i;
    bar.style.left = (100 * s.start / total) + "%";
    bar.style.width = (100 * Math.max(s.end - s.start, 0) / total) + "%";
    bar.style.top = (rows.get(s.lane + "/" + s.depth) * 17) + "px";
    if (!failed(s)) bar.style.background = colour(s.kind);
    bar.title = s.kind + " " + s.name + " · " + seconds(s.end - s.start) + " · " + s.status;
    bar.addEventListener("click", () => { reveal(i); select(i); });
    frag.appendChild(bar);
  });
  box.appendChild(frag);
}

function reveal(i) {
  for (let p = run.spans[i].parent; p !== null && p !== undefined; p = run.spans[p].parent) open.add(p);
  tree();
}

function tree() {
  const box = document.getElementById("tree");
  const total = latest(run.spans);
  const frag = document.createDocumentFragment();
  const roots = run.spans.map((s, i) => i).filter(i => run.spans[i].parent === null);
  const walk = i => {
    const s = run.spans[i];
    const row = el("div", "row" + (failed(s) ? " error" : "") + (i === selected ? " selected" : ""));
    row.setAttribute("role", "treeitem");
    row.dataset.span = i; row.dataset.depth = s.depth;
    const label = el("div", "label");
    label.style.paddingLeft = (s.depth * 14) + "px";
    const toggle = el("span", "toggle", s.children.length ? (open.has(i) ? "▾" : "▸") : "");
    if (s.children.length) {
      row.setAttribute("aria-expanded", open.has(i) ? "true" : "false");
      toggle.addEventListener("click", e => {
        e.stopPropagation();
        if (open.has(i)) open.delete(i); else open.add(i);
        tree();
      });
    }
    const kind = el("span", "kind", s.kind); kind.style.background = colour(s.kind);
    label.append(toggle, kind, el("span", null, s.name));
    const track = el("div", "track"), fill = el("div");
    fill.style.left = (100 * s.start / total) + "%";
    fill.style.width = (100 * Math.max(s.end - s.start, 0) / total) + "%";
    fill.style.background = failed(s) ? "var(--err)" : colour(s.kind);
    track.appendChild(fill);
    row.append(label, el("span", "status", s.status), el("span", "num", seconds(s.end - s.start)),
               el("span", "num", tokens(s)), track);
    row.addEventListener("click", () => select(i));
    frag.appendChild(row);
    if (open.has(i)) s.children.forEach(walk);
  };
  roots.forEach(walk);
  box.replaceChildren(frag);
}

function select(i) {
  selected = i;
  document.querySelectorAll(".selected").forEach(n => n.classList.remove("selected"));
  document.querySelectorAll('[data-span="' + i + '"]').forEach(n => n.classList.add("selected"));
  details(run.spans[i]);
}

function details(s) {
  const box = document.getElementById("details");
  box.replaceChildren();
  if (!s) { box.textContent = "Click a span in the timeline or the tree."; return; }
  const dl = el("dl");
  const add = (k, v, cls) => {
    if (v !== "" && v !== undefined && v !== null) dl.append(el("dt", null, k), el("dd", cls, v));
  };
  add("span", s.kind + " " + s.name);
  add("status", s.status);
  add("duration", seconds(s.end - s.start));
  add("starts at", seconds(s.start));
  add("tokens", tokens(s));
  const info = s.info || {};
  if (info.attempts > 1) add("attempts", info.attempts);
  if (info.cached) add("cache", "answered from the cache");
  if (info.score !== undefined) add("score", info.score);
  if (info.success !== undefined) add("success", info.success ? "yes" : "no");
  if (s.error) add("error", (s.error.type || "error") + ": " + (s.error.message || ""), "error-text");
  box.appendChild(dl);
  for (const [key, label] of TEXTS) {
    if (typeof info[key] === "string" && info[key]) { box.append(el("h2", null, label), el("pre", null, info[key])); }
  }
  const rest = Object.fromEntries(Object.entries(info).filter(([k]) => !TEXTS.some(([t]) => t === k)));
  if (Object.keys(rest).length) box.append(el("h2", null, "info"), el("pre", null, JSON.stringify(rest, null, 2)));
  if (s.kind === "loop") box.appendChild(iterations(s));
}

function iterations(loop) {
  const table = el("table"), head = el("tr");
  ["#", "status", "success", "score", "duration", "feedback"].forEach(h => head.appendChild(el("th", null, h)));
  table.appendChild(head);
  loop.children.map(i => [i, run.spans[i]]).filter(([, s]) => s.kind === "iteration").forEach(([i, s]) => {
    const info = s.info || {}, row = el("tr");
    row.dataset.span = i;
    row.append(el("td", null, info.iteration !== undefined ? info.iteration + 1 : ""),
               el("td", failed(s) ? "bad" : null, s.status),
               el("td", info.success ? "ok" : "bad", info.success ? "yes" : "no"),
               el("td", null, info.score !== undefined ? info.score : ""),
               el("td", null, seconds(s.end - s.start)),
               el("td", "feedback", info.feedback || (s.error ? s.error.message : "")));
    row.addEventListener("click", () => { reveal(i); select(i); });
    table.appendChild(row);
  });
  return table;
}

function loops() {
  const box = document.getElementById("loops");
  box.replaceChildren();
  const found = run.spans.filter(s => s.kind === "loop");
  if (!found.length) { box.textContent = "No loops in this run."; return; }
  found.forEach(loop => {
    const block = el("details"), head = el("summary");
    const n = loop.children.filter(i => run.spans[i].kind === "iteration").length;
    head.textContent = loop.name + " · " + loop.status + " · " + n + " iterations · " + seconds(loop.end - loop.start);
    block.append(head, iterations(loop));
    box.appendChild(block);
  });
}

const picker = document.getElementById("runs");
RUNS.forEach((r, i) => picker.appendChild(el("option", null, r.title + " (" + r.spans.length + " spans)")));
picker.value = picker.options.length ? picker.options[picker.options.length - 1].value : "";
picker.selectedIndex = RUNS.length - 1;
picker.addEventListener("change", () => choose(picker.selectedIndex));
if (RUNS.length) choose(RUNS.length - 1);
// When the report is on screen (tests read it: the time to first paint of the whole report).
requestAnimationFrame(() => setTimeout(() => performance.mark("taskscheme-report-painted"), 0));
"""
