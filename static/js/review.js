// A quick review on a phone: the answer's long parts (the long answer, the code) come in folded,
// so the answer points and the rating are a thumb away; a wider screen keeps them open, as does
// a page without scripts.
(function () {
  "use strict";

  var NARROW = window.matchMedia("(max-width: 600px)");

  function fold(root) {
    if (!NARROW.matches || !root.querySelectorAll) return;
    root.querySelectorAll("details[data-fold-narrow]").forEach(function (part) { part.open = false; });
  }

  document.addEventListener("DOMContentLoaded", function () {
    fold(document);
    document.body.addEventListener("htmx:load", function (event) { fold(event.detail.elt); });
  });
})();
