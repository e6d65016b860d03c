// Demo timelines by touch, mouse and keyboard: tapping, hovering or focusing a bar shows its step's
// numbers under the timeline. Each timeline is one stop for Tab; the arrow keys, Home and End move
// between its bars in time order (a "roving" tabindex), so 40 steps are not 80 Tab presses.
(function () {
  "use strict";

  function bars(svg) {
    return Array.prototype.slice.call(svg.querySelectorAll("rect.bar")).sort(function (a, b) {
      return parseFloat(a.getAttribute("x")) - parseFloat(b.getAttribute("x"));
    });
  }

  function show(bar) {
    var figure = bar.closest("figure.timeline");
    var readout = figure && figure.querySelector("[data-readout]");
    if (!readout) return;
    figure.querySelectorAll("rect.bar.selected").forEach(function (other) { other.classList.remove("selected"); });
    bar.classList.add("selected");
    readout.textContent = bar.getAttribute("aria-label");
  }

  function makeStop(bar) {
    bar.closest("svg").querySelectorAll('rect.bar[tabindex="0"]').forEach(function (other) {
      other.setAttribute("tabindex", "-1");
    });
    bar.setAttribute("tabindex", "0");
  }

  function init(root) {
    root.querySelectorAll("svg.timeline-svg").forEach(function (svg) {
      var all = bars(svg);
      if (all.length && !svg.querySelector('rect.bar[tabindex="0"]')) all[0].setAttribute("tabindex", "0");
    });
  }

  function barOf(event) {
    var el = event.target;
    return el && el.closest ? el.closest("svg.timeline-svg rect.bar") : null;
  }

  document.addEventListener("click", function (event) {
    var bar = barOf(event);
    if (bar) { makeStop(bar); show(bar); }
  });
  document.addEventListener("mouseover", function (event) {
    var bar = barOf(event);
    if (bar) show(bar);
  });
  document.addEventListener("focusin", function (event) {
    var bar = barOf(event);
    if (bar) { makeStop(bar); show(bar); }
  });
  document.addEventListener("keydown", function (event) {
    var bar = barOf(event);
    if (!bar) return;
    var all = bars(bar.closest("svg"));
    var at = all.indexOf(bar);
    var to = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: all.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    var next = all[Math.max(0, Math.min(all.length - 1, to))];
    makeStop(next);
    next.focus();
  });

  document.addEventListener("DOMContentLoaded", function () {
    init(document);
    document.body.addEventListener("htmx:load", function (event) { init(event.detail.elt); });
  });
})();
