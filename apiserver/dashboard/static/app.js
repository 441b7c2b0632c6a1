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
    // The number of progress events so far, and the count at the last one of each transcript:
    // a fresh copy of the page fetched before a transcript's last event is older than it.
    var events = 0, lastEvent = {};
    // The stream sends what changes after it opens: a transcript that finished between the
    // page's rendering and the stream's (re)opening is read again from a fresh copy of the page.
    es.addEventListener("open", function () {
      // The fields show words for people; their states are in the status's class and the AI
      // check's data-state.
      var busy = document.querySelector("[data-live] [data-field=status].status-pending, [data-live] [data-field=ai_pass_status][data-state=queued], [data-live] [data-field=ai_pass_status][data-state=running]") !== null;
      if (!busy || !window.fetch || !window.DOMParser) return;
      var asked = events;
      fetch(location.href, { credentials: "same-origin" }).then(function (r) { return r.ok ? r.text() : ""; }).then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html");
        document.querySelectorAll("[data-live]").forEach(function (el) {
          var id = el.getAttribute("data-live");
          var now = fresh.querySelector('[data-live="' + id + '"]');
          if (!now || (lastEvent[id] || 0) > asked) return;
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
      lastEvent[p.id] = ++events;
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
  // Review (issue #23): j and k go through the changes in the text, a and r press the focused
  // change's accept and reject buttons, Escape closes it; none fires while a field is typed in.
  // Selecting words of the text opens the form that adds a correction, with the selection's
  // offsets into the submitted document (UTF-8 bytes, as the server counts them).
  var review = document.querySelector("[data-review]");
  if (review) {
    var changes = Array.prototype.slice.call(review.querySelectorAll("details[data-change]"));
    var keys = document.getElementById("review-keys");
    if (keys && changes.length) keys.hidden = false;
    var current = -1;
    var at = function (i) {
      if (!changes.length) return;
      if (current >= 0) {
        changes[current].open = false;
        changes[current].classList.remove("current");
      }
      current = (i + changes.length) % changes.length;
      var c = changes[current];
      c.classList.add("current");
      c.open = true;
      c.querySelector("summary").focus();
    };
    if (location.hash.indexOf("#c-") === 0) {
      var from = changes.indexOf(document.getElementById(location.hash.slice(1)));
      if (from >= 0) {
        current = from;
        changes[from].classList.add("current");
        changes[from].querySelector("summary").focus();
      }
    }
    changes.forEach(function (c, i) {
      c.addEventListener("toggle", function () { if (c.open) current = i; });
    });
    document.addEventListener("keydown", function (ev) {
      var t = ev.target;
      if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented) return;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
      var k = ev.key;
      if (k === "j" || k === "k") {
        ev.preventDefault();
        at(current < 0 && k === "k" ? changes.length - 1 : current + (k === "j" ? 1 : -1));
      } else if ((k === "a" || k === "r") && current >= 0) {
        var b = changes[current].querySelector('button[data-key="' + k + '"]');
        if (b) {
          ev.preventDefault();
          b.click();
        }
      } else if (k === "Escape" && current >= 0) {
        changes[current].open = false;
        changes[current].querySelector("summary").focus();
      }
    });
    var text = document.getElementById("review-text");
    var form = document.getElementById("add-fix");
    if (text && form && window.getSelection && window.TextEncoder) {
      var enc = new TextEncoder();
      var field = function (n) { return form.querySelector('[name="' + n + '"]'); };
      var home = form.parentNode, next = form.nextSibling;
      var cancel = form.querySelector("[data-add-cancel]");
      var dock = function () {
        form.classList.remove("floating");
        form.style.top = form.style.left = "";
        home.insertBefore(form, next);
        cancel.hidden = true;
      };
      var spanOf = function (node) {
        var el = node && (node.nodeType === 3 ? node.parentNode : node);
        return el && el.parentNode === text && el.hasAttribute("data-src") ? el : null;
      };
      var picked = function () {
        var sel = window.getSelection();
        if (!sel.rangeCount || sel.isCollapsed) return;
        var r = sel.getRangeAt(0);
        if (!text.contains(r.commonAncestorContainer)) return;
        var s = spanOf(r.startContainer), e = spanOf(r.endContainer);
        var words = sel.toString();
        if (!words.trim()) return;
        field("words").value = words;
        if (s && s === e) {
          var base = Number(s.getAttribute("data-src"));
          var data = r.startContainer.data;
          field("start").value = base + enc.encode(data.slice(0, r.startOffset)).length;
          field("end").value = base + enc.encode(data.slice(0, r.endOffset)).length;
        } else {
          // Across a change or a line: the server says what cannot be done.
          field("start").value = "0";
          field("end").value = "0";
        }
        var box = r.getBoundingClientRect();
        document.body.appendChild(form);
        form.classList.add("floating");
        cancel.hidden = false;
        if (phone.matches) {
          // A sheet at the bottom of the screen (style.css): the selected words are moved
          // into the part of the screen above it.
          form.style.top = form.style.left = "";
          var above = window.innerHeight - form.offsetHeight;
          if (box.bottom > above - 8 || box.top < 0) window.scrollBy(0, box.top - Math.max(8, (above - box.height) / 2));
          return;
        }
        var w = form.offsetWidth;
        form.style.top = (window.scrollY + box.bottom + 8) + "px";
        form.style.left = Math.max(8, Math.min(window.scrollX + box.left, window.scrollX + document.documentElement.clientWidth - w - 8)) + "px";
        var f = form.getBoundingClientRect();
        if (f.bottom > window.innerHeight) window.scrollBy(0, Math.min(f.bottom - window.innerHeight + 8, f.top - 8));
      };
      var phone = window.matchMedia("(max-width:40rem)");
      var waiting = 0;
      // On a phone the selection is made by holding a word and dragging its handles, with no
      // mouseup and a touchend that may come before the end: the form follows the selection.
      document.addEventListener("selectionchange", function () {
        if (!phone.matches) return;
        clearTimeout(waiting);
        waiting = setTimeout(picked, 400);
      });
      text.addEventListener("mouseup", function () { setTimeout(picked, 0); });
      text.addEventListener("keyup", function (ev) { if (ev.shiftKey) picked(); });
      text.addEventListener("touchend", function () { setTimeout(picked, 300); });
      field("words").addEventListener("input", function () { field("start").value = field("end").value = ""; });
      cancel.addEventListener("click", dock);
      form.addEventListener("keydown", function (ev) { if (ev.key === "Escape") dock(); });
    }
  }
})();
