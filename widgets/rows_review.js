// Rows review widget (anywidget front end). Plain ES module, no build step.
// Only one page of rows lives here; every change asks Python for the next view.

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
  let editing = null;

  const toolbar = el("div", { class: "mdqa-toolbar" });
  const grid = el("div", { class: "mdqa-grid", tabindex: "0" });
  const side = el("div", { class: "mdqa-side" });
  const evidence = el("div", { class: "mdqa-evidence" });
  const answer = el("div", { class: "mdqa-answer" });
  const message = el("div", { class: "mdqa-message", role: "alert" });
  side.append(el("h4", {}, "Evidence"), evidence, el("h4", {}, "Answer"), answer);
  root.append(toolbar, message, el("div", { class: "mdqa-body" }, grid, side));

  const fields = () => model.get("fields");
  const metas = () => model.get("meta_columns");

  function setAndSave(k, v) { model.set(k, v); model.save_changes(); }

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
    const pages = Math.max(1, Math.ceil(model.get("total") / model.get("page_size")));
    const nav = el("span", { class: "mdqa-nav" },
      el("button", { class: "mdqa-prev", onclick: () => setAndSave("page", Math.max(0, model.get("page") - 1)) }, "‹"),
      ` page ${model.get("page") + 1} / ${pages} · ${model.get("total")} documents `,
      el("button", { class: "mdqa-next", onclick: () => setAndSave("page", Math.min(pages - 1, model.get("page") + 1)) }, "›"));
    toolbar.append(status, field, el("span", {}, " conf ≤ "), conf, sort, desc, nav,
      el("span", { class: "mdqa-help" }, "  ↑↓←→ move · Enter edit · v verify · u undo · PgUp/PgDn page"));
  }

  function send(type, r, c, extra = {}) {
    const row = model.get("rows")[r];
    const f = fields()[c];
    if (!row || !f) return;
    model.send({ type, doc_id: row.doc_id, field: f.name, ...extra });
  }

  function startEdit(td, r, c) {
    const f = fields()[c];
    const cell = model.get("rows")[r].cells[f.name] || {};
    const input = el("input", { class: "mdqa-edit", type: "text", "data-type": f.type });
    input.value = cell.value === null || cell.value === undefined ? "" : (Array.isArray(cell.value) ? cell.value.join("; ") : String(cell.value));
    editing = { r, c };
    td.replaceChildren(input);
    input.focus();
    input.select();
    input.addEventListener("keydown", (e) => {
      e.stopPropagation();
      if (e.key === "Escape") { editing = null; drawGrid(); grid.focus(); }
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

  function drawGrid() {
    const rows = model.get("rows");
    const table = el("table", { class: "mdqa-table" });
    const head = el("tr", {}, el("th", {}, "doc_id"), ...metas().map((m) => el("th", {}, m)), ...fields().map((f) => el("th", { title: f.type }, f.name)));
    table.append(el("thead", {}, head));
    const body = el("tbody");
    rows.forEach((row, r) => {
      const tr = el("tr", { "data-doc": row.doc_id });
      tr.append(el("td", { class: "mdqa-doc" }, row.doc_id), ...metas().map((m) => el("td", {}, show(row.meta[m]))));
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
      el("div", { class: "mdqa-ev-head" }, el("b", {}, ev.field), ` · ${ev.doc_id} · page ${ev.page ?? "—"} · ${ev.reader ?? ""} · `, el("span", { class: `mdqa-badge badge-${ev.status}` }, ev.status)),
      el("div", { class: "mdqa-ev-value" }, "value: ", el("b", {}, show(ev.value)), ev.status === "corrected" ? ` (extracted: ${show(ev.extracted_value)})` : ""),
      highlight(ev.snippet, ev.extracted_value),
    ];
    if (ev.message) items.push(el("div", { class: "mdqa-muted" }, ev.message));
    if (ev.image) items.push(el("img", { class: "mdqa-crop", src: ev.image, alt: `page ${ev.page} of ${ev.doc_id}` }));
    evidence.replaceChildren(...items);
  }

  function onKey(e) {
    if (editing) return;
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

  const redraw = () => { buildToolbar(); drawGrid(); };
  model.on("change:rows", redraw);
  model.on("change:total", buildToolbar);
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
