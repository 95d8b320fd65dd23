// cardarena dashboard: live polling of [data-poll] regions (ETag / 304) and replay keyboard
// navigation; wide tables scroll in their box, with a cue at an edge with more beyond it.  Self-written, no dependencies; loaded with `defer` (CSP: script-src 'self').
(function () {
  "use strict";

  function poll(el) {
    var url = el.getAttribute("data-poll");
    var every = parseInt(el.getAttribute("data-poll-ms") || "2000", 10);
    // The page was rendered with the region's current ETag: unchanged content answers 304.
    var etag = el.getAttribute("data-poll-etag") || null;
    function tick() {
      var headers = {};
      if (etag) headers["If-None-Match"] = etag;
      fetch(url, { headers: headers, cache: "no-store", credentials: "same-origin" })
        .then(function (r) {
          if (r.status === 200) {
            etag = r.headers.get("ETag");
            return r.text().then(function (html) {
              // A table scrolled sideways stays where the reader had it.
              var box = el.querySelector(".table-scroll");
              var left = box ? box.scrollLeft : 0;
              // The fragment is server-rendered and autoescaped.
              el.innerHTML = html;
              box = el.querySelector(".table-scroll");
              if (box) box.scrollLeft = left;
              el.setAttribute("data-updated", String(Date.now()));
              scrollers();
            });
          }
        })
        .catch(function () { /* keep polling; the server may be restarting */ })
        .then(function () { window.setTimeout(tick, every); });
    }
    window.setTimeout(tick, every);
  }

  function stepper() {
    var nav = document.getElementById("stepper");
    if (!nav) return;
    document.addEventListener("keydown", function (ev) {
      // Alt+← is the browser's Back, Ctrl/Meta+arrows move by word: leave those alone; so
      // too keys typed into a form field or aimed at a table that scrolls sideways.
      if (ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
      if (ev.target && /INPUT|SELECT|TEXTAREA/.test(ev.target.tagName)) return;
      if (ev.target && ev.target.closest && ev.target.closest(".table-scroll[role=region]")) return;
      var map = { ArrowLeft: "step-prev", ArrowRight: "step-next", Home: "step-first", End: "step-last" };
      var id = map[ev.key];
      if (!id) return;
      var a = document.getElementById(id);
      if (a) { ev.preventDefault(); window.location.assign(a.href); }
    });
  }

  // Whether a box has more of its table beyond its left and right edges (the CSS fades that
  // edge, or shadows a pinned column).
  function edges(box) {
    box.classList.toggle("more-left", box.scrollLeft > 1);
    box.classList.toggle("more-right", box.scrollWidth - box.clientWidth - box.scrollLeft > 1);
  }

  // A table with two pinned columns (.pin-2: rank and bot) pins the second beside the first.
  function pinned(box) {
    var table = box.querySelector("table.pin-2");
    if (!table || !table.rows.length) return;
    var first = table.rows[0].cells[0];
    table.style.setProperty("--pin-left", first.getBoundingClientRect().width + "px");
  }

  // A table wider than its box scrolls inside it (.table-scroll); such a box is made a
  // focusable, named region so that keyboard users can scroll it too (arrow keys).
  function scrollers() {
    var boxes = document.querySelectorAll(".table-scroll");
    for (var i = 0; i < boxes.length; i++) {
      var box = boxes[i];
      if (box.scrollWidth > box.clientWidth + 1) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "region");
        var caption = box.querySelector("caption");
        box.setAttribute("aria-label", "table, scrolls sideways" + (caption ? ": " + caption.textContent : ""));
      } else if (box.getAttribute("role") === "region") {
        box.removeAttribute("tabindex");
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
      }
      edges(box);
      pinned(box);
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    var regions = document.querySelectorAll("[data-poll]");
    for (var i = 0; i < regions.length; i++) poll(regions[i]);
    stepper();
    scrollers();
    window.addEventListener("resize", scrollers);
    // scroll does not bubble: one listener, capturing, for every box (those polled in too)
    document.addEventListener("scroll", function (ev) {
      var box = ev.target;
      if (box.classList && box.classList.contains("table-scroll")) edges(box);
    }, { capture: true, passive: true });
  });
})();
