// baton dashboard: live refresh, actions through the tools API, small
// conveniences. No framework and no build step; the server renders every
// page and escapes every agent's text, so this script only moves server
// HTML around (never builds HTML from event data).
(function () {
  "use strict";
  // The CSRF token comes once, in the login redirect's #fragment, and is
  // kept in this origin's storage: other servers on the same host (which
  // do get the cookie) cannot read it. --insecure-local writes it in the
  // page instead.
  if (location.hash.startsWith("#csrf=")) {
    try { localStorage.setItem("baton-csrf", decodeURIComponent(location.hash.slice(6))); } catch (e) { /* private mode */ }
    history.replaceState(null, "", location.pathname + location.search);
  }
  const csrf = document.querySelector('meta[name="csrf-token"]')?.content || localStorage.getItem("baton-csrf") || "";
  const loggedIn = document.body.dataset.session === "1";
  const liveTypes = (document.body.dataset.live || "").split(" ").filter(Boolean);
  const state = document.getElementById("live-state");

  // Dirty or focused forms keep what the operator is typing: a region
  // holding one is left alone until the next refresh.
  function busy(el) {
    if (el.contains(document.activeElement) && document.activeElement !== document.body) return true;
    for (const f of el.querySelectorAll("textarea, input[type=text], select")) {
      if (f.tagName === "SELECT") { if (f.dataset.dirty) return true; continue; }
      if (f.value !== f.defaultValue) return true;
    }
    return false;
  }

  // A change is shown within a second: refreshes wait 150 ms for more
  // changes to come with it, and start at least 700 ms apart, so a busy
  // team (hundreds of changes a second) costs the server about one page
  // render a second per open page, not one per change.
  const coalesce = 150, minGap = 700;
  let timer = null, inFlight = false, again = false, lastStart = -Infinity;
  function refreshSoon(delay) {
    if (timer) return;
    const wait = Math.max(delay === undefined ? coalesce : delay, lastStart + minGap - performance.now());
    timer = setTimeout(() => { timer = null; refresh(); }, wait);
  }
  async function refresh() {
    if (inFlight) { again = true; return; }
    inFlight = true;
    lastStart = performance.now();
    try {
      const res = await fetch(location.href, { headers: { "X-Partial": "1" }, credentials: "same-origin" });
      if (!res.ok && res.status !== 404) return;
      const doc = new DOMParser().parseFromString("<main>" + (await res.text()) + "</main>", "text/html");
      const main = document.getElementById("content");
      const regions = doc.querySelectorAll("[data-live-region][id]");
      if (regions.length === 0) { if (!busy(main)) main.replaceChildren(...doc.body.firstChild.childNodes); }
      for (const fresh of regions) {
        const old = document.getElementById(fresh.id);
        if (!old) { continue; }
        if (busy(old)) continue;
        old.replaceWith(document.importNode(fresh, true));
      }
      document.dispatchEvent(new CustomEvent("baton:refreshed"));
    } catch (e) {
      // The next change or reconnect tries again.
    } finally {
      inFlight = false;
      if (again) { again = false; refreshSoon(); }
    }
  }

  function relevant(ev) {
    if (liveTypes.length === 0) return true;
    return liveTypes.some((p) => ev.type.startsWith(p));
  }

  function toast(text) {
    const box = document.getElementById("toasts");
    if (!box) return;
    const t = document.createElement("div");
    t.className = "toast";
    t.textContent = text; // event fields are agent text: never HTML
    box.appendChild(t);
    while (box.children.length > 4) box.firstChild.remove();
    setTimeout(() => t.remove(), 4000);
  }

  function connect() {
    if (!window.EventSource || !loggedIn) { state.hidden = true; return; } // a logged-out page has no stream
    const es = new EventSource("/live");
    es.addEventListener("open", () => { state.textContent = "live"; state.classList.add("on"); });
    es.addEventListener("error", () => {
      state.textContent = es.readyState === EventSource.CLOSED ? "offline" : "reconnecting";
      state.classList.remove("on");
    });
    const reload = () => refreshSoon(0);
    es.addEventListener("hello", reload);
    es.addEventListener("reset", reload);
    es.addEventListener("change", (m) => {
      let ev;
      try { ev = JSON.parse(m.data); } catch (e) { return; }
      document.body.dataset.lastEvent = ev.type + " " + (ev.subject || "");
      if (ev.type === "message.sent" || ev.type === "question.asked") {
        toast((ev.agent || "someone") + ": " + (ev.type === "question.asked" ? "asks you a question" : "sent a message"));
      }
      if (relevant(ev)) refreshSoon();
    });
  }

  // Actions: <form class="act" data-tool="NAME"> posts its fields as the
  // tool's JSON arguments. data-type="int|bool|list" on a field converts
  // it; data-confirm asks first.
  function argsOf(form) {
    const args = {};
    for (const el of form.elements) {
      if (!el.name || el.disabled) continue;
      let v = el.type === "checkbox" ? el.checked : el.value;
      if (el.type !== "checkbox" && el.dataset.optional !== undefined && v === "") continue;
      switch (el.dataset.type) {
        case "int": v = v === "" ? undefined : Number(v); break;
        case "bool": v = v === true || v === "true"; break;
        case "list": v = String(v).split(",").map((s) => s.trim()).filter(Boolean); break;
      }
      if (v !== undefined) args[el.name] = v;
    }
    return args;
  }
  // data-each="NAME" on a form makes one call per field named NAME (the
  // Messages page's broadcast: send_message to each agent it lists), the
  // other arguments shared. Every call is made, and the result says which
  // failed.
  function callsOf(form, args) {
    const each = form.dataset.each;
    if (!each) return [args];
    return Array.from(form.elements)
      .filter((el) => el.name === each && !el.disabled && el.value !== "")
      .map((el) => Object.assign({}, args, { [each]: el.value }));
  }
  async function act(form, submitter) {
    const out = form.querySelector(".result") || form.appendChild(Object.assign(document.createElement("span"), { className: "result" }));
    const tool = (submitter && submitter.dataset.tool) || form.dataset.tool;
    const ask = (submitter && submitter.dataset.confirm) || form.dataset.confirm;
    if (ask && !window.confirm(ask)) return;
    if (form.dataset.post) { await post(form, out); return; }
    const args = argsOf(form);
    if (submitter && submitter.name) args[submitter.name] = submitter.dataset.type === "bool" ? submitter.value === "true" : submitter.value;
    const buttons = form.querySelectorAll("button");
    buttons.forEach((b) => (b.disabled = true));
    out.className = "result"; out.textContent = "working…";
    try {
      const calls = callsOf(form, args);
      const failed = [];
      let body = {};
      for (const call of calls) {
        const res = await fetch("/api/tools/" + encodeURIComponent(tool), {
          method: "POST", credentials: "same-origin",
          headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
          body: JSON.stringify(call),
        });
        body = await res.json().catch(() => ({}));
        if (!res.ok || body.error) {
          const e = body.error || {};
          const why = (e.message || ("failed: HTTP " + res.status)) + (e.next_action_hint ? " — " + e.next_action_hint : "");
          failed.push(calls.length > 1 ? call[form.dataset.each] + ": " + why : why);
        }
      }
      if (failed.length) {
        out.className = "result bad";
        out.textContent = (calls.length > 1 ? (calls.length - failed.length) + " of " + calls.length + " done; " : "") + failed.join("; ");
        return;
      }
      out.className = "result ok";
      out.textContent = form.dataset.done || "done";
      form.reset();
      for (const s of form.querySelectorAll("select")) delete s.dataset.dirty;
      if (form.dataset.then === "reload") { location.reload(); return; }
      if (form.dataset.show) { showResult(form.dataset.show, body.result); }
      refreshSoon(0);
    } catch (e) {
      out.className = "result bad"; out.textContent = "the server did not answer: " + e.message;
    } finally {
      buttons.forEach((b) => (b.disabled = false));
    }
  }
  // post sends a form's plain POST (data-post="/path", no arguments) and
  // puts the HTML the server rendered for it into #data-into.
  async function post(form, out) {
    const buttons = form.querySelectorAll("button");
    buttons.forEach((b) => (b.disabled = true));
    out.className = "result"; out.textContent = "working…";
    try {
      const res = await fetch(form.dataset.post, { method: "POST", credentials: "same-origin", headers: { "X-CSRF-Token": csrf } });
      if (!res.ok) {
        const e = (await res.json().catch(() => ({}))).error || {};
        out.className = "result bad";
        out.textContent = (e.message || ("failed: HTTP " + res.status)) + (e.next_action_hint ? " — " + e.next_action_hint : "");
        return;
      }
      const doc = new DOMParser().parseFromString(await res.text(), "text/html");
      document.getElementById(form.dataset.into)?.replaceChildren(...Array.from(doc.body.childNodes, (n) => document.importNode(n, true)));
      out.textContent = "";
    } catch (e) {
      out.className = "result bad"; out.textContent = "the server did not answer: " + e.message;
    } finally {
      buttons.forEach((b) => (b.disabled = false));
    }
  }

  // showResult puts a tool's JSON result, as text, into #ID.
  function showResult(id, result) {
    const el = document.getElementById(id);
    if (el) el.textContent = JSON.stringify(result, null, 2);
  }

  document.addEventListener("submit", (e) => {
    const form = e.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains("act")) return;
    e.preventDefault();
    act(form, e.submitter);
  });
  document.addEventListener("change", (e) => {
    const el = e.target;
    if (el.tagName === "SELECT") el.dataset.dirty = "1";
    if (el.classList && el.classList.contains("autosubmit")) {
      delete el.dataset.dirty;
      el.form.requestSubmit();
    }
  });
  document.getElementById("logout")?.addEventListener("click", async () => {
    await fetch("/logout", { method: "POST", headers: { "X-CSRF-Token": csrf }, credentials: "same-origin" });
    location.href = "/login";
  });

  // A page can name when it changes by time alone (a claim turning stale
  // makes no event): data-refresh-in, milliseconds after it was rendered,
  // refreshes it then, once.
  let clock = null;
  function scheduleClock() {
    clearTimeout(clock);
    const el = document.querySelector("[data-refresh-in]");
    if (!el) return;
    const wait = Number(el.dataset.refreshIn) + 500;
    if (wait > 0 && wait < 2147483647) clock = setTimeout(() => refreshSoon(0), wait);
  }
  document.addEventListener("baton:refreshed", scheduleClock);
  scheduleClock();

  window.baton = { refresh: refreshSoon };
  connect();
})();
