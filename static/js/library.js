// The library is one page for everyone (cached); where each card stands for the person comes after
// it (templates/_library_marks.html) and is put on each card here: due, new or learned.
(function () {
  "use strict";

  function mark(root) {
    var list = root.querySelector(".card-marks");
    if (!list) return;
    list.querySelectorAll("li[data-card-id]").forEach(function (item) {
      var card = document.querySelector('.card-item[data-card-id="' + CSS.escape(item.dataset.cardId) + '"]');
      var badge = card && card.querySelector("[data-mark]");
      if (!badge) return;
      badge.textContent = item.textContent;
      badge.className = "badge mark mark-" + item.dataset.mark;
      badge.hidden = false;
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.body.addEventListener("htmx:load", function (event) {
      var elt = event.detail.elt;
      if (elt && elt.id === "library-marks") mark(elt);
    });
  });
})();
