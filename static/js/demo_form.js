// The "Run it live" forms send a key made here, one per page view, so that a double click (or a
// submit the browser sends twice) starts one run: the server answers a repeated key with the run
// it started. The card page is cached and the same for everyone, so the key cannot come with it.
(function () {
  "use strict";

  function newKey() {
    var bytes = new Uint8Array(16);
    // Not crypto.randomUUID: that exists only on HTTPS and localhost.
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }

  function fill(root) {
    var fields = root.querySelectorAll('input[name="idempotency_key"]');
    for (var i = 0; i < fields.length; i++) fields[i].value = newKey();
  }

  document.addEventListener("DOMContentLoaded", function () { fill(document); });
  // A form the server sent back (a refused submit) is a new form: it gets a new key.
  document.addEventListener("htmx:load", function (event) { fill(event.target); });
  // Back from a run's page the browser may show this page as it was left, with the key that
  // started that run: a new run needs a new one.
  window.addEventListener("pageshow", function (event) { if (event.persisted) fill(document); });
})();
