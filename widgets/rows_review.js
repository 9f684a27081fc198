// Rows review widget (anywidget front end). Plain ES module, no build step.
// Only one page of rows (or of the needs-review queue) lives here; every change asks Python for the next view.

const NUM = /^\s*[-+(]?[\d,，]*\.?\d+\)?\s*%?\s*$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const BOOLS = ["true", "false", "yes", "no", "是", "否", "1", "0"];

function validate(type, text) {
  const t = String(text).trim();
  if (t === "") return null;
  if (type === "number" || type === "percent") return NUM.test(t) ? null : "enter a number, e.g. 1234.5";
  if (type === "integer") return /^\s*-?[\d,]+\s*$/.test(t) ? null : "enter a whole number";
  if (type === "boolean") return BOOLS.includes(t.toLowerCase()) ? null : "enter true/false (是/否)";
  if (type === "date") return DATE.test(t) && !isNaN(Date.parse(t)) ? null : "enter a date as YYYY-MM-DD";
  return null;
}

function show(value) {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value)) return value.join("; ");
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toLocaleString("en-US", { maximumFractionDigits: 6 });
  return String(value);
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null) node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

function highlight(snippet, value) {
  const span = el("span", { class: "mdqa-snippet" });
  const text = snippet || "";
  const needle = value === null || value === undefined ? "" : show(value);
  const i = needle ? text.indexOf(needle) : -1;
  if (i < 0) { span.textContent = text; return span; }
  span.append(text.slice(0, i), el("mark", {}, text.slice(i, i + needle.length)), text.slice(i + needle.length));
  return span;
}

function render({ model, el: root }) {
  root.classList.add("mdqa-review");
  let cursor = { r: 0, c: 0 };
  let qcursor = 0;  // the selected item of the needs-review queue
  let editing = null;

  const tabs = el("div", { class: "mdqa-tabs", role: "tablist" });
  const toolbar = el("div", { class: "mdqa-toolbar" });
  const grid = el("div", { class: "mdqa-grid", tabindex: "0" });
  const side = el("div", { class: "mdqa-side" });
  const evidence = el("div", { class: "mdqa-evidence" });
  const answer = el("div", { class: "mdqa-answer" });
  const message = el("div", { class: "mdqa-message", role: "alert" });
  side.append(el("h4", {}, "Evidence"), evidence, el("h4", {}, "Answer"), answer);
  root.append(tabs, toolbar, message, el("div", { class: "mdqa-body" }, grid, side));

  const fields = () => model.get("fields");
  const metas = () => model.get("meta_columns");

  function setAndSave(k, v) { model.set(k, v); model.save_changes(); }
  const inQueue = () => model.get("tab") === "queue";
  // A document by its metadata label; its id stays one hover away.
  const docCell = (label, docId) => el("td", { class: "mdqa-doc", title: docId, "data-doc-id": docId }, label || docId);

  function buildTabs() {
    const tab = (name, text) => el("button", {
      class: `mdqa-tab mdqa-tab-${name}${model.get("tab") === name ? " mdqa-tab-active" : ""}`, role: "tab",
      onclick: () => { editing = null; setAndSave("tab", name); },
    }, text);
    tabs.replaceChildren(tab("rows", `Rows (${model.get("total")})`), tab("queue", `Needs review (${model.get("queue_total")})`));
  }

  function buildToolbar() {
    toolbar.replaceChildren();
    const status = el("select", { class: "mdqa-filter-status", onchange: (e) => { setAndSave("page", 0); setAndSave("filter_status", e.target.value); } },
      el("option", { value: "" }, "all statuses"), ...model.get("statuses").map((s) => el("option", { value: s }, s)));
    status.value = model.get("filter_status");
    const field = el("select", { class: "mdqa-filter-field", onchange: (e) => { setAndSave("page", 0); setAndSave("filter_field", e.target.value); } },
      el("option", { value: "" }, "all fields"), ...fields().map((f) => el("option", { value: f.name }, f.name)));
    field.value = model.get("filter_field");
    const conf = el("input", { class: "mdqa-filter-conf", type: "number", min: "0", max: "1", step: "0.1", title: "show cells with confidence at most",
      onchange: (e) => setAndSave("max_confidence", Math.max(0, Math.min(1, Number(e.target.value) || 1))) });
    conf.value = model.get("max_confidence");
    const sort = el("select", { class: "mdqa-sort", onchange: (e) => setAndSave("sort_by", e.target.value) },
      el("option", { value: "doc_id" }, "sort: doc_id"),
      ...metas().map((m) => el("option", { value: m }, `sort: ${m}`)),
      ...fields().flatMap((f) => [el("option", { value: f.name }, `sort: ${f.name}`), el("option", { value: `${f.name}:confidence` }, `sort: ${f.name} confidence`)]));
    sort.value = model.get("sort_by");
    const desc = el("label", {}, el("input", { type: "checkbox", class: "mdqa-desc", onchange: (e) => setAndSave("descending", e.target.checked) }), " desc");
    desc.firstChild.checked = model.get("descending");
    if (inQueue()) {
      const qpages = Math.max(1, Math.ceil(model.get("queue_total") / model.get("page_size")));
      const qnav = el("span", { class: "mdqa-nav" },
        el("button", { class: "mdqa-qprev", onclick: () => setAndSave("queue_page", Math.max(0, model.get("queue_page") - 1)) }, "‹"),
        ` page ${model.get("queue_page") + 1} / ${qpages} · ${model.get("queue_total")} cells to review, riskiest first `,
        el("button", { class: "mdqa-qnext", onclick: () => setAndSave("queue_page", Math.min(qpages - 1, model.get("queue_page") + 1)) }, "›"));
      toolbar.replaceChildren(field, qnav, el("span", { class: "mdqa-help" }, "  ↑↓ move · Enter edit · v verify"));
      return;
    }
    const pages = Math.max(1, Math.ceil(model.get("total") / model.get("page_size")));
    const nav = el("span", { class: "mdqa-nav" },
      el("button", { class: "mdqa-prev", onclick: () => setAndSave("page", Math.max(0, model.get("page") - 1)) }, "‹"),
      ` page ${model.get("page") + 1} / ${pages} · ${model.get("total")} documents `,
      el("button", { class: "mdqa-next", onclick: () => setAndSave("page", Math.min(pages - 1, model.get("page") + 1)) }, "›"));
    toolbar.append(status, field, el("span", {}, " conf ≤ "), conf, sort, desc, nav,
      el("span", { class: "mdqa-help" }, "  ↑↓←→ move · Enter edit · v verify · u undo · PgUp/PgDn page"));
  }

  // The (document, field) a grid position or a queue position names.
  function target(r, c) {
    if (inQueue()) {
      const item = model.get("queue_items")[r];
      return item ? { doc_id: item.doc_id, field: item.field, value: item.value } : null;
    }
    const row = model.get("rows")[r];
    const f = fields()[c];
    if (!row || !f) return null;
    return { doc_id: row.doc_id, field: f.name, value: (row.cells[f.name] || {}).value };
  }

  function send(type, r, c, extra = {}) {
    const t = target(r, c);
    if (!t) return;
    model.send({ type, doc_id: t.doc_id, field: t.field, ...extra });
  }

  function startEdit(td, r, c) {
    const t = target(r, c);
    if (!t) return;
    const f = fields().find((x) => x.name === t.field) || { name: t.field, type: "text" };
    const input = el("input", { class: "mdqa-edit", type: "text", "data-type": f.type });
    input.value = t.value === null || t.value === undefined ? "" : (Array.isArray(t.value) ? t.value.join("; ") : String(t.value));
    editing = { r, c };
    td.replaceChildren(input);
    input.focus();
    input.select();
    input.addEventListener("keydown", (e) => {
      e.stopPropagation();
      if (e.key === "Escape") { editing = null; draw(); grid.focus(); }
      if (e.key === "Enter") {
        const problem = validate(f.type, input.value);
        if (problem) { input.classList.add("mdqa-invalid"); message.textContent = `${f.name}: ${problem}`; return; }
        editing = null;
        message.textContent = "saving…";
        send("edit", r, c, { value: input.value });
        grid.focus();
      }
    });
  }

  function drawQueue() {
    const items = model.get("queue_items");
    const table = el("table", { class: "mdqa-table mdqa-queue" });
    table.append(el("thead", {}, el("tr", {}, ...["risk", "document", "field", "value", "status", "why"].map((h) => el("th", {}, h)))));
    const body = el("tbody");
    items.forEach((item, r) => {
      const value = el("td", { class: `mdqa-cell mdqa-qvalue status-${item.status}`, "data-row": r, "data-col": 0, "data-field": item.field }, el("span", { class: "mdqa-value" }, show(item.value)));
      const tr = el("tr", { class: `mdqa-qitem${qcursor === r ? " mdqa-cursor" : ""}`, "data-doc": item.doc_id, "data-field": item.field, "data-row": r },
        el("td", { class: "mdqa-risk" }, el("span", { class: "mdqa-riskbar", style: `width:${Math.round(item.risk * 40)}px` }), ` ${Math.round(item.risk * 100)}`),
        docCell(item.label, item.doc_id),
        el("td", {}, item.field),
        value,
        el("td", {}, el("span", { class: `mdqa-badge badge-${item.status}` }, item.status.replace("_", " "))),
        el("td", { class: "mdqa-reasons" }, item.reasons));
      tr.addEventListener("click", () => { moveQueue(r); send("select", r, 0); });
      tr.addEventListener("dblclick", () => { qcursor = r; startEdit(value, r, 0); });
      body.append(tr);
    });
    if (!items.length) body.append(el("tr", {}, el("td", { colspan: "6", class: "mdqa-muted" }, "Nothing left to review.")));
    table.append(body);
    grid.replaceChildren(table);
    if (editing) {
      const td = grid.querySelector(`td.mdqa-qvalue[data-row="${editing.r}"]`);
      if (td) startEdit(td, editing.r, 0);
    }
  }

  function moveQueue(r) {
    qcursor = r;
    grid.querySelectorAll(".mdqa-cursor").forEach((n) => n.classList.remove("mdqa-cursor"));
    const tr = grid.querySelector(`tr.mdqa-qitem[data-row="${r}"]`);
    if (tr) { tr.classList.add("mdqa-cursor"); tr.scrollIntoView({ block: "nearest" }); }
  }

  function draw() { if (inQueue()) drawQueue(); else drawGrid(); }

  function drawGrid() {
    const rows = model.get("rows");
    const table = el("table", { class: "mdqa-table" });
    const head = el("tr", {}, el("th", { title: "entity · year · document type (hover for the document id)" }, "document"), ...metas().map((m) => el("th", {}, m)), ...fields().map((f) => el("th", { title: f.type }, f.name)));
    table.append(el("thead", {}, head));
    const body = el("tbody");
    rows.forEach((row, r) => {
      const tr = el("tr", { "data-doc": row.doc_id });
      tr.append(docCell(row.label, row.doc_id), ...metas().map((m) => el("td", {}, show(row.meta[m]))));
      fields().forEach((f, c) => {
        const cell = row.cells[f.name] || { status: "not_found", value: null };
        const td = el("td", { class: `mdqa-cell status-${cell.status}`, "data-field": f.name, "data-row": r, "data-col": c });
        if (cursor.r === r && cursor.c === c) td.classList.add("mdqa-cursor");
        const conf = cell.confidence === null || cell.confidence === undefined ? "" : ` ${Math.round(cell.confidence * 100)}%`;
        td.append(el("span", { class: "mdqa-value" }, show(cell.value)), el("span", { class: `mdqa-badge badge-${cell.status}`, title: `confidence${conf}` }, cell.status.replace("_", " ")));
        td.addEventListener("click", () => { moveCursor(r, c); send("select", r, c); });
        td.addEventListener("dblclick", () => { cursor = { r, c }; startEdit(td, r, c); });
        tr.append(td);
      });
      body.append(tr);
    });
    table.append(body);
    grid.replaceChildren(table);
    if (editing) {
      const td = grid.querySelector(`td[data-row="${editing.r}"][data-col="${editing.c}"]`);
      if (td) startEdit(td, editing.r, editing.c);
    }
  }

  // Move the highlight without rebuilding the table, so a double click lands on the same cell.
  function moveCursor(r, c) {
    cursor = { r, c };
    grid.querySelectorAll(".mdqa-cursor").forEach((n) => n.classList.remove("mdqa-cursor"));
    const td = grid.querySelector(`td[data-row="${r}"][data-col="${c}"]`);
    if (td) { td.classList.add("mdqa-cursor"); td.scrollIntoView({ block: "nearest" }); }
  }

  function drawEvidence() {
    const ev = model.get("evidence");
    if (!ev || !ev.doc_id) { evidence.replaceChildren(el("p", { class: "mdqa-muted" }, "Click a cell to see where its value came from.")); return; }
    const items = [
      el("div", { class: "mdqa-ev-head" }, el("b", {}, ev.field), " · ", el("span", { class: "mdqa-ev-doc", title: ev.doc_id }, ev.label || ev.doc_id), ` · page ${ev.page ?? "—"} · ${ev.reader ?? ""} · `, el("span", { class: `mdqa-badge badge-${ev.status}` }, ev.status)),
      el("div", { class: "mdqa-ev-value" }, "value: ", el("b", {}, show(ev.value)), ev.status === "corrected" ? ` (extracted: ${show(ev.extracted_value)})` : ""),
      highlight(ev.snippet, ev.extracted_value),
    ];
    if (ev.reasons) items.push(el("div", { class: "mdqa-ev-reasons" }, `needs review: ${ev.reasons}`));
    if (ev.message) items.push(el("div", { class: "mdqa-muted" }, ev.message));
    if (ev.image) {
      // The crop is rendered at 3 px per point; shown at 1.25 px per point (print-size text) and
      // scrolled so the value's box is in view with as much as fits left of it (its row label). A
      // click doubles it for small print, another click goes back.
      const k = { normal: 1.25 / 3, zoom: 2.5 / 3 };
      const img = el("img", { class: "mdqa-crop", src: ev.image, alt: `page ${ev.page} of ${ev.label || ev.doc_id}`, title: "click to zoom" });
      const frame = el("div", { class: "mdqa-crop-frame" }, img);
      const fit = () => {
        const f = frame.classList.contains("mdqa-crop-zoom") ? k.zoom : k.normal;
        img.style.width = `${Math.round(img.naturalWidth * f)}px`;
        const box = ev.image_box;
        if (!box) return;
        frame.scrollLeft = Math.max(0, Math.min(box[0] * f - 20, box[2] * f + 40 - frame.clientWidth));
        frame.scrollTop = Math.max(0, ((box[1] + box[3]) / 2) * f - frame.clientHeight / 2);
      };
      img.addEventListener("load", fit);
      img.addEventListener("click", () => { frame.classList.toggle("mdqa-crop-zoom"); fit(); });
      items.push(frame);
    }
    evidence.replaceChildren(...items);
  }

  function onQueueKey(e) {
    const n = model.get("queue_items").length;
    let handled = true;
    if (e.key === "ArrowDown") { moveQueue(Math.min(n - 1, qcursor + 1)); send("select", qcursor, 0); }
    else if (e.key === "ArrowUp") { moveQueue(Math.max(0, qcursor - 1)); send("select", qcursor, 0); }
    else if (e.key === "Enter") { const td = grid.querySelector(`td.mdqa-qvalue[data-row="${qcursor}"]`); if (td) startEdit(td, qcursor, 0); }
    else if (e.key === "v") send("verify", qcursor, 0);
    else if (e.key === "PageDown") setAndSave("queue_page", model.get("queue_page") + 1);
    else if (e.key === "PageUp") setAndSave("queue_page", Math.max(0, model.get("queue_page") - 1));
    else handled = false;
    if (handled) e.preventDefault();
  }

  function onKey(e) {
    if (editing) return;
    if (inQueue()) return onQueueKey(e);
    const rows = model.get("rows");
    const nf = fields().length;
    let handled = true;
    if (e.key === "ArrowDown") cursor = { ...cursor, r: Math.min(rows.length - 1, cursor.r + 1) };
    else if (e.key === "ArrowUp") cursor = { ...cursor, r: Math.max(0, cursor.r - 1) };
    else if (e.key === "ArrowRight") cursor = { ...cursor, c: Math.min(nf - 1, cursor.c + 1) };
    else if (e.key === "ArrowLeft") cursor = { ...cursor, c: Math.max(0, cursor.c - 1) };
    else if (e.key === "PageDown") { setAndSave("page", model.get("page") + 1); cursor.r = 0; }
    else if (e.key === "PageUp") { setAndSave("page", Math.max(0, model.get("page") - 1)); cursor.r = 0; }
    else if (e.key === "Enter") { const td = grid.querySelector(".mdqa-cursor"); if (td) startEdit(td, cursor.r, cursor.c); return e.preventDefault(); }
    else if (e.key === "v") send("verify", cursor.r, cursor.c);
    else if (e.key === "u") send("undo", cursor.r, cursor.c);
    else handled = false;
    if (handled) {
      e.preventDefault();
      if (e.key.startsWith("Arrow")) { moveCursor(cursor.r, cursor.c); send("select", cursor.r, cursor.c); }
    }
  }
  grid.addEventListener("keydown", onKey);

  const redraw = () => { buildTabs(); buildToolbar(); draw(); };
  model.on("change:rows", () => { if (!inQueue()) redraw(); });
  model.on("change:queue_items", () => { if (inQueue()) { qcursor = Math.min(qcursor, Math.max(0, model.get("queue_items").length - 1)); redraw(); } else buildTabs(); });
  model.on("change:tab", redraw);
  model.on("change:total", () => { buildTabs(); buildToolbar(); });
  model.on("change:queue_total", () => { buildTabs(); if (inQueue()) buildToolbar(); });
  model.on("change:evidence", drawEvidence);
  model.on("change:answer_html", () => { answer.innerHTML = model.get("answer_html"); });
  model.on("change:message", () => { message.textContent = model.get("message"); });
  model.on("change:edits", () => { if (message.textContent === "saving…") message.textContent = ""; });
  redraw();
  drawEvidence();
  answer.innerHTML = model.get("answer_html");
  message.textContent = model.get("message");
  return () => grid.removeEventListener("keydown", onKey);
}

export default { render };
