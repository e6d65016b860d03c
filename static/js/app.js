// tiercards: the little the pages need beyond htmx. No inline scripts (the CSP forbids them).
(function () {
  "use strict";

  function csrfToken() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  // Every htmx request carries the CSRF token; forms also send it as a field for no-JS use.
  document.addEventListener("htmx:configRequest", function (event) {
    event.detail.headers["X-CSRF-Token"] = csrfToken();
    var form = event.detail.elt.closest ? event.detail.elt.closest("form") : null;
    var timer = form && form.querySelector("[data-timer]");
    if (timer && timer._elapsed) {
      event.detail.parameters["seconds"] = timer._elapsed().toFixed(1);
    }
  });

  // A request that failed outright (server error, network) says so instead of doing nothing.
  document.addEventListener("htmx:responseError", function (event) {
    showError("The server answered " + event.detail.xhr.status + ". Nothing you typed was lost; try again.");
  });
  document.addEventListener("htmx:sendError", function () {
    showError("Could not reach the server. Nothing you typed was lost; try again.");
  });

  function showError(text) {
    var toast = document.getElementById("request-error");
    if (!toast) return;
    toast.textContent = text;
    toast.hidden = false;
    setTimeout(function () { toast.hidden = true; }, 6000);
  }

  function format(seconds) {
    var whole = Math.floor(Math.abs(seconds));
    var m = Math.floor(whole / 60), s = whole % 60;
    return m + ":" + (s < 10 ? "0" : "") + s;
  }

  // A countdown from data-limit seconds that runs into overtime and never locks anyone out;
  // without data-limit it counts up. data-start="load" starts at once, "focus" on first focus.
  function startTimer(el) {
    if (el._started) return;
    el._started = true;
    var limit = parseFloat(el.dataset.limit || "");
    var begin = performance.now();
    el._elapsed = function () { return (performance.now() - begin) / 1000; };
    function tick() {
      if (!document.body.contains(el)) return;
      var elapsed = el._elapsed();
      if (isNaN(limit)) {
        el.textContent = format(elapsed);
      } else if (elapsed <= limit) {
        // Round the time left up, as a countdown does: "0:20" for the whole first second.
        el.textContent = format(Math.ceil(limit - elapsed)) + " left";
      } else {
        el.classList.add("overtime");
        el.textContent = "+" + format(elapsed - limit) + " over";
      }
      setTimeout(tick, 250);
    }
    tick();
  }

  function initTimers(root) {
    root.querySelectorAll("[data-timer]").forEach(function (el) {
      if (el.dataset.start === "focus") {
        var form = el.closest("form");
        if (form) form.addEventListener("focusin", function () { startTimer(el); }, { once: true });
        if (form) form.addEventListener("change", function () { startTimer(el); }, { once: true });
      } else {
        startTimer(el);
      }
    });
  }

  function init(root) {
    initTimers(root);
    // Fill the seconds field for forms posted without htmx too.
    root.querySelectorAll("form").forEach(function (form) {
      form.addEventListener("submit", function () {
        var timer = form.querySelector("[data-timer]");
        var field = form.querySelector("[data-timer-seconds]");
        if (timer && field && timer._elapsed) field.value = timer._elapsed().toFixed(1);
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    init(document);
    document.body.addEventListener("htmx:load", function (event) {
      if (event.detail.elt !== document.body) init(event.detail.elt);
    });
  });
})();
