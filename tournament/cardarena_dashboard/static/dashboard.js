// cardarena dashboard: live polling of [data-poll] regions (ETag / 304) and replay keyboard
// navigation.  Self-written, no dependencies; loaded with `defer` (CSP: script-src 'self').
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
              // The fragment is server-rendered and autoescaped.
              el.innerHTML = html;
              el.setAttribute("data-updated", String(Date.now()));
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
      if (ev.target && /INPUT|SELECT|TEXTAREA/.test(ev.target.tagName)) return;
      var map = { ArrowLeft: "step-prev", ArrowRight: "step-next", Home: "step-first", End: "step-last" };
      var id = map[ev.key];
      if (!id) return;
      var a = document.getElementById(id);
      if (a) { ev.preventDefault(); window.location.assign(a.href); }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var regions = document.querySelectorAll("[data-poll]");
    for (var i = 0; i < regions.length; i++) poll(regions[i]);
    stepper();
  });
})();
