// Railbird console: keyboard navigation of the queue, confirm prompts, auto-submit filters and a
// tiny "poll and swap" for live sections. No inline scripts (CSP), no dependencies, no build.
(function () {
  "use strict";

  function rows() { return Array.prototype.slice.call(document.querySelectorAll("#queue tbody tr[data-href]")); }

  function select(index) {
    var all = rows();
    if (!all.length) { return; }
    index = Math.max(0, Math.min(all.length - 1, index));
    all.forEach(function (r) { r.classList.remove("selected"); r.removeAttribute("aria-selected"); });
    all[index].classList.add("selected");
    all[index].setAttribute("aria-selected", "true");
    all[index].scrollIntoView({ block: "nearest" });
  }

  function current() {
    var all = rows();
    for (var i = 0; i < all.length; i++) { if (all[i].classList.contains("selected")) { return i; } }
    return -1;
  }

  document.addEventListener("keydown", function (event) {
    var tag = (event.target && event.target.tagName) || "";
    if (event.key === "Escape" && tag === "INPUT") { event.target.blur(); return; }
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || event.ctrlKey || event.metaKey || event.altKey) { return; }
    if (event.key === "/") {
      var search = document.getElementById("q");
      if (search) { search.focus(); search.select(); event.preventDefault(); return; }
    }
    var all = rows();
    var i = current();
    if (event.key === "j") { select(i + 1); event.preventDefault(); }
    else if (event.key === "k") { select(i < 0 ? 0 : i - 1); event.preventDefault(); }
    else if (event.key === "Enter" && i >= 0) { window.location.assign(all[i].getAttribute("data-href")); event.preventDefault(); }
    else if (event.key === "c") {
      var form = null;
      if (i >= 0) { form = document.getElementById(all[i].getAttribute("data-claim")); }
      else { var button = document.getElementById("claim"); form = button ? button.form : null; }
      if (form) { form.submit(); event.preventDefault(); }
    }
    else if (event.key === "x" && i >= 0) {
      var box = document.getElementById(all[i].getAttribute("data-tick"));
      if (box) { box.checked = !box.checked; event.preventDefault(); }
    }
  });

  document.addEventListener("click", function (event) {
    var row = event.target.closest ? event.target.closest("#queue tbody tr[data-href]") : null;
    var t = event.target.tagName;
    if (row && t !== "BUTTON" && t !== "A" && t !== "INPUT") { select(rows().indexOf(row)); }
  });

  document.addEventListener("submit", function (event) {
    var button = event.submitter;
    var message = (button && button.getAttribute("data-confirm")) || event.target.getAttribute("data-confirm");
    if (message && !window.confirm(message)) { event.preventDefault(); }
  });

  document.querySelectorAll("select[data-autosubmit]").forEach(function (el) {
    el.addEventListener("change", function () { el.form.submit(); });
  });

  // A filtered queue's tab counts arrive after the page (each is a bounded count of its own).
  document.querySelectorAll("[data-counts]").forEach(function (el) {
    fetch(el.getAttribute("data-counts"), { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (c) {
        if (!c) { return; }
        document.querySelectorAll("[data-family]").forEach(function (span) {
          var v = c.families[span.getAttribute("data-family")];
          if (v !== undefined) { span.textContent = v; }
        });
        document.querySelectorAll("option[data-status]").forEach(function (opt) {
          var v = c.statuses[opt.getAttribute("data-status")];
          if (v !== undefined) { opt.textContent = opt.value + " (" + v + ")"; }
        });
      })
      .catch(function () { /* the counts are a convenience: the queue works without them */ });
  });

  // Re-fetch the page and swap in the fresh copy of each element marked data-poll="ms".
  document.querySelectorAll("[data-poll][id]").forEach(function (el) {
    var every = parseInt(el.getAttribute("data-poll"), 10) || 2000;
    window.setInterval(function () {
      fetch(window.location.href, { credentials: "same-origin", headers: { "X-Requested-With": "poll" } })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (!html) { return; }
          var fresh = new DOMParser().parseFromString(html, "text/html").getElementById(el.id);
          var live = document.getElementById(el.id);
          if (fresh && live) { live.replaceChildren.apply(live, Array.prototype.slice.call(fresh.childNodes)); }
        })
        .catch(function () { /* transient: try again next tick */ });
    }, every);
  });

  // Hand replayer: without script every street is listed; with it, step through them one by one.
  document.querySelectorAll("[data-replayer]").forEach(function (list) {
    var steps = Array.prototype.slice.call(list.querySelectorAll("[data-step]"));
    if (steps.length < 2) { return; }
    var shown = 0;
    var bar = document.createElement("div");
    bar.className = "replayer-controls";
    function button(label, delta) {
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.addEventListener("click", function () { show(shown + delta); });
      bar.appendChild(b);
      return b;
    }
    var back = button("◀ previous street", -1);
    var next = button("next street ▶", 1);
    var all = button("show all", steps.length);
    function show(n) {
      shown = Math.max(0, Math.min(steps.length - 1, n));
      steps.forEach(function (s, i) { s.hidden = i > shown; });
      back.disabled = shown === 0;
      next.disabled = all.disabled = shown === steps.length - 1;
    }
    list.parentNode.insertBefore(bar, list.nextSibling);
    show(0);
  });

  if (rows().length) { select(0); }
})();
