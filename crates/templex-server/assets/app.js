// templex viewer: asks the server for a key page's template and shows the page, made inert
// by the server, in a sandboxed frame (no scripts may run in it) with overlays toggled by
// classes on the frame's <html>.
"use strict";

const $ = (id) => document.getElementById(id);
let sites = [];
let last = null;
let contentTab = "text";
const blobs = [];

function setStatus(text, error = false) {
  $("status").textContent = text;
  $("status").classList.toggle("error", error);
}

function from() {
  return document.querySelector('input[name="from"]:checked').value;
}

function showFrom() {
  for (const el of document.querySelectorAll(".from")) {
    el.hidden = !el.classList.contains("from-" + from());
  }
}

// A chooser may cut its choice short (the toolbar fits the window): its title is the whole.
function titleChoice(select) {
  const o = select.selectedOptions[0];
  select.title = o ? o.title || o.textContent : "";
}

function fillPages() {
  const site = sites[Number($("site").value)];
  const filter = $("page-filter").value.trim().toLowerCase();
  const select = $("page");
  select.replaceChildren();
  if (site) {
    let shown = 0;
    for (const url of site.pages) {
      if (filter && !url.toLowerCase().includes(filter)) continue;
      const o = document.createElement("option");
      o.value = url;
      o.textContent = url;
      select.append(o);
      if (++shown >= 2000) break;
    }
  }
  titleChoice(select);
}

// A site by its folder's (or WARC file's) name first, then its path.
function siteLabel(s) {
  const name = s.path.split(/[\\/]/).filter(Boolean).pop() || s.path;
  const pages = `${name} (${s.total_pages} pages)`;
  return name === s.path ? pages : `${pages} · ${s.path}`;
}

async function init() {
  document.querySelectorAll('input[name="from"]').forEach((r) => r.addEventListener("change", showFrom));
  $("site").addEventListener("change", () => { titleChoice($("site")); fillPages(); });
  $("page").addEventListener("change", () => titleChoice($("page")));
  $("page-filter").addEventListener("input", fillPages);
  $("ask").addEventListener("submit", (e) => { e.preventDefault(); run(); });
  $("view").addEventListener("load", applyToggles);
  for (const id of ["show-template", "show-content", "show-segments"]) {
    $(id).addEventListener("change", applyToggles);
  }
  document.querySelectorAll(".tabs button").forEach((b) => b.addEventListener("click", () => {
    contentTab = b.dataset.tab;
    document.querySelectorAll(".tabs button").forEach((x) => x.classList.toggle("on", x === b));
    showContent();
  }));
  try {
    const health = await (await fetch("/v1/health")).json();
    if (!health.fetch) $("from-url-label").hidden = true;
    sites = await (await fetch("/v1/sites")).json();
  } catch (e) {
    setStatus("cannot reach the server: " + e, true);
    return;
  }
  for (const s of sites) {
    const o = document.createElement("option");
    o.value = String(s.id);
    o.textContent = siteLabel(s);
    o.title = s.path;
    $("site").append(o);
  }
  titleChoice($("site"));
  if (!sites.length) {
    document.querySelector('input[value="paste"]').checked = true;
    showFrom();
  }
  fillPages();
  document.body.dataset.ready = "1";
}

function request() {
  const req = { method: $("method").value, include: ["view", "content", "annotated", "template"] };
  switch (from()) {
    case "site": req.url = $("page").value; break;
    case "paste":
      req.html = $("html").value;
      if ($("paste-url").value.trim()) req.url = $("paste-url").value.trim();
      break;
    case "url": req.url = $("live-url").value.trim(); break;
  }
  return req;
}

async function run() {
  const req = request();
  if (!req.url && !req.html) { setStatus("choose a page, paste HTML or give a URL", true); return; }
  setStatus("working…");
  $("run").disabled = true;
  document.body.dataset.state = "working";
  try {
    const r = await fetch("/v1/template", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(req),
    });
    const answer = await r.json();
    if (!r.ok) throw new Error(answer.error || r.statusText);
    show(answer);
    setStatus(`${answer.template_elements} of ${answer.body_elements} elements are template`);
    document.body.dataset.state = "done";
  } catch (e) {
    setStatus(String(e.message || e), true);
    document.body.dataset.state = "error";
  } finally {
    $("run").disabled = false;
  }
}

function download(id, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  blobs.push(url);
  $(id).href = url;
}

function show(answer) {
  last = answer;
  while (blobs.length) URL.revokeObjectURL(blobs.pop());
  $("view").srcdoc = answer.view_html;
  $("summary").hidden = false;
  $("key-url").textContent = answer.key_url;
  $("res-method").textContent = answer.method + (answer.fallback ? " (fallback: no sibling shares the template)" : "");
  $("res-elements").textContent = `${answer.template_elements} of ${answer.body_elements} body elements`;
  $("res-loaded").textContent = String(answer.pages_loaded);
  const t = answer.timings_ms;
  $("res-timings").textContent =
    `key page ${t.key_page.toFixed(1)} ms · siblings ${t.siblings.toFixed(1)} ms · ` +
    `mapping ${t.mapping.toFixed(1)} ms · total ${t.total.toFixed(1)} ms`;
  const cs = $("cs-pages");
  cs.replaceChildren();
  for (const url of answer.cs_pages) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = url;
    a.textContent = url;
    a.target = "_blank";
    a.rel = "noopener noreferrer";
    li.append(a);
    cs.append(li);
  }
  if (!answer.cs_pages.length) cs.append(Object.assign(document.createElement("li"), { textContent: "none" }));
  $("notes").textContent = answer.notes.join(" · ");
  const json = { ...answer };
  delete json.view_html; delete json.annotated_html; delete json.template_html; delete json.content;
  download("dl-annotated", answer.annotated_html, "text/html");
  download("dl-template", answer.template_html, "text/html");
  download("dl-json", JSON.stringify(json, null, 2), "application/json");
  $("content").hidden = false;
  $("content-method").textContent = answer.content ? `(${answer.content.method})` : "";
  showContent();
}

function showContent() {
  if (!last || !last.content) return;
  $("content-text").textContent = contentTab === "markdown" ? last.content.markdown : last.content.text;
}

function applyToggles() {
  const doc = $("view").contentDocument;
  if (!doc || !doc.documentElement || !doc.documentElement.dataset.txView) return;
  const root = doc.documentElement;
  root.classList.toggle("tx-show-template", $("show-template").checked);
  root.classList.toggle("tx-show-content", $("show-content").checked);
  const segments = $("show-segments").checked;
  root.classList.toggle("tx-show-segments", segments);
  for (const el of doc.querySelectorAll("[data-tx-seg]")) {
    const score = Number(el.getAttribute("data-tx-seg"));
    if (segments) el.title = `PAGELEVEL segment · templateness ${score.toFixed(3)}`;
    else el.removeAttribute("title");
  }
  document.body.dataset.view = "1";
}

init();
