// The console's only script: while the crawl runs, it fetches the page
// again every few seconds and swaps in its <main>, so the view stays
// live without a full reload (scroll position and focus stay). It stops
// while the tab is hidden. Without it, the page's <noscript> refresh does
// the same with reloads.
(function () {
  "use strict";
  var body = document.body;
  var every = parseInt(body.getAttribute("data-refresh") || "0", 10);
  if (!every || body.getAttribute("data-running") !== "true") {
    return;
  }
  function refresh() {
    // Not while the tab is hidden, nor while someone types in a form.
    var active = document.activeElement;
    if (document.hidden || (active && active.closest && active.closest("form"))) {
      return;
    }
    fetch(window.location.href, { credentials: "same-origin", headers: { "X-Console-Refresh": "1" } })
      .then(function (r) {
        return r.ok ? r.text() : null;
      })
      .then(function (text) {
        if (!text) {
          return;
        }
        var doc = new DOMParser().parseFromString(text, "text/html");
        var next = doc.querySelector("main");
        var cur = document.querySelector("main");
        if (next && cur) {
          cur.replaceWith(document.adoptNode(next));
        }
        var running = doc.body && doc.body.getAttribute("data-running");
        if (running !== "true") {
          window.clearInterval(timer);
        }
      })
      .catch(function () {
        // The daemon stopped or restarts: keep the last view.
      });
  }
  var timer = window.setInterval(refresh, every * 1000);
})();
