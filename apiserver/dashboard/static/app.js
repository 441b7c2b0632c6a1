// Live progress: the server streams each transcript's status and jobs; rows and panels that
// name a transcript with data-live are updated in place. Copy buttons copy their target. A
// page opened by an emailed link posts the token of the link's fragment (which no server sees)
// and takes it out of the address bar and the history. The form that adds a transcript shows
// the fields of the chosen source.
(function () {
  "use strict";
  var tokenForm = document.querySelector("form[data-token-form]");
  if (tokenForm && location.hash.length > 1) {
    tokenForm.querySelector("input[name=token]").value = decodeURIComponent(location.hash.slice(1));
    history.replaceState(null, "", location.pathname);
    tokenForm.submit();
  }
  var root = document.querySelector("[data-live-url]");
  if (root && window.EventSource) {
    var es = new EventSource(root.getAttribute("data-live-url"));
    // The stream sends what changes after it opens: a transcript that finished between the
    // page's rendering and the stream's (re)opening is read again from a fresh copy of the page.
    es.addEventListener("open", function () {
      // The fields show words for people; their states are in the status's class and the AI
      // check's data-state.
      var busy = document.querySelector("[data-live] [data-field=status].status-pending, [data-live] [data-field=ai_pass_status][data-state=queued], [data-live] [data-field=ai_pass_status][data-state=running]") !== null;
      if (!busy || !window.fetch || !window.DOMParser) return;
      fetch(location.href, { credentials: "same-origin" }).then(function (r) { return r.ok ? r.text() : ""; }).then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html");
        document.querySelectorAll("[data-live]").forEach(function (el) {
          var now = fresh.querySelector('[data-live="' + el.getAttribute("data-live") + '"]');
          if (!now) return;
          el.querySelectorAll("[data-field]").forEach(function (f) {
            var name = f.getAttribute("data-field");
            var g = now.querySelector('[data-field="' + name + '"]');
            if (!g || name === "reload" || g.innerHTML === f.innerHTML) return;
            f.innerHTML = g.innerHTML;
            f.className = g.className;
            if (g.hasAttribute("data-state")) f.setAttribute("data-state", g.getAttribute("data-state"));
            if (name === "status" && !/\bstatus-pending\b/.test(g.className)) {
              el.querySelectorAll("[data-field=reload]").forEach(function (r) { r.hidden = false; });
            }
          });
        });
      });
    });
    es.addEventListener("progress", function (ev) {
      var p = JSON.parse(ev.data);
      document.querySelectorAll('[data-live="' + p.id + '"]').forEach(function (el) {
        el.querySelectorAll("[data-field=status]").forEach(function (s) {
          s.textContent = p.status_text || p.status;
          s.className = "status status-" + p.status;
        });
        el.querySelectorAll("[data-field=ai_pass_status]").forEach(function (s) {
          s.textContent = p.ai_pass_text || p.ai_pass_status;
          s.setAttribute("data-state", p.ai_pass_status);
        });
        el.querySelectorAll("[data-field=changes]").forEach(function (s) { s.textContent = String(p.changes); });
        el.querySelectorAll("tbody[data-field=jobs]").forEach(function (tb) {
          while (tb.firstChild) tb.removeChild(tb.firstChild);
          p.jobs.forEach(function (j) {
            var tr = document.createElement("tr");
            [j.id, j.type, j.status, j.progress + "%", j.error ? j.error.message : ""].forEach(function (v) {
              var td = document.createElement("td");
              td.textContent = v;
              tr.appendChild(td);
            });
            tb.appendChild(tr);
          });
        });
        if (p.status !== "pending") {
          el.querySelectorAll("[data-field=reload]").forEach(function (r) { r.hidden = false; });
        }
      });
    });
  }
  // "All events" of the endpoint form ticks or clears every event; without JavaScript it is
  // sent as the event "all", which stands for every one.
  document.querySelectorAll("input[data-select-all]").forEach(function (all) {
    var boxes = all.form.querySelectorAll('input[name="' + all.name + '"]:not([data-select-all])');
    all.checked = all.checked || Array.prototype.every.call(boxes, function (x) { return x.checked; });
    all.addEventListener("change", function () {
      boxes.forEach(function (b) { b.checked = all.checked; });
    });
    boxes.forEach(function (b) {
      b.addEventListener("change", function () {
        all.checked = Array.prototype.every.call(boxes, function (x) { return x.checked; });
      });
    });
  });
  document.querySelectorAll("button[data-copy]").forEach(function (b) {
    b.hidden = false;
    b.addEventListener("click", function () {
      var t = document.getElementById(b.getAttribute("data-copy"));
      // A read-only text area (a transcript's text) is copied as it is.
      var text = t && t.tagName === "TEXTAREA" ? t.value : t && t.textContent.trim();
      var copied = function () { b.textContent = "Copied"; };
      // Without the clipboard API (or its permission), a text area is selected and copied.
      var select = function () {
        if (t && t.select) {
          t.select();
          if (document.execCommand("copy")) copied();
        }
      };
      if (t && navigator.clipboard) {
        navigator.clipboard.writeText(text).then(copied, select);
      } else {
        select();
      }
    });
  });
  // Adding a transcript: only the fields of the chosen source are shown, and a file above the
  // limit is refused before it is sent (the server refuses it too).
  var add = document.querySelector("form[data-add-form]");
  if (add) {
    var panels = add.querySelectorAll("[data-source]");
    var show = function () {
      var chosen = add.querySelector("input[name=source]:checked");
      panels.forEach(function (p) { p.hidden = !chosen || p.getAttribute("data-source") !== chosen.value; });
    };
    add.querySelectorAll("input[name=source]").forEach(function (r) { r.addEventListener("change", show); });
    show();
    var file = add.querySelector("input[type=file]");
    var max = Number(add.getAttribute("data-max-file"));
    add.addEventListener("submit", function (ev) {
      var chosen = add.querySelector("input[name=source]:checked");
      if (chosen && chosen.value === "file" && file.files.length && file.files[0].size > max) {
        ev.preventDefault();
        file.setCustomValidity("The file is larger than " + (max / 1000000) + " MB, the most that can be uploaded.");
        file.reportValidity();
      }
    });
    file.addEventListener("change", function () { file.setCustomValidity(""); });
  }
})();
