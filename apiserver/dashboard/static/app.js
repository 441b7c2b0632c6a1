// Live progress: the server streams each transcript's status and jobs; rows and panels that
// name a transcript with data-live are updated in place. Copy buttons copy their target. A
// page opened by an emailed link posts the token of the link's fragment (which no server sees)
// and takes it out of the address bar and the history.
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
    es.addEventListener("progress", function (ev) {
      var p = JSON.parse(ev.data);
      document.querySelectorAll('[data-live="' + p.id + '"]').forEach(function (el) {
        el.querySelectorAll("[data-field=status]").forEach(function (s) {
          s.textContent = p.status_text || p.status;
          s.className = "status status-" + p.status;
        });
        el.querySelectorAll("[data-field=ai_pass_status]").forEach(function (s) { s.textContent = p.ai_pass_text || p.ai_pass_status; });
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
      if (t && navigator.clipboard) {
        navigator.clipboard.writeText(t.textContent.trim()).then(function () { b.textContent = "Copied"; });
      }
    });
  });
})();
