// /practice keyboard shortcuts: Space reveals, 1-4 rate (again, hard, good, easy).
// They stay out of the way while typing: in a text box the keys type; Esc leaves the box.
(function () {
  "use strict";

  var typing = window.tiercards.keys.typing;

  function shortcut(name) {
    var card = document.getElementById("practice-card");
    return card ? card.querySelector('[data-shortcut="' + name + '"]') : null;
  }

  document.addEventListener("keydown", function (event) {
    if (!document.getElementById("practice-card")) return;
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
    var target = event.target;
    if (event.key === "Escape" && typing(target) && target.closest("#practice-card")) {
      target.blur();
      return;
    }
    if (typing(target)) return;
    var button = null;
    if (event.key === " " || event.code === "Space") {
      // Space on a focused button or checkbox keeps its usual meaning.
      if (target.tagName === "BUTTON" || target.tagName === "INPUT" || target.tagName === "A") return;
      button = shortcut("reveal");
    } else if (/^[1-4]$/.test(event.key)) {
      button = shortcut(event.key);
    }
    if (button && !button.disabled) {
      event.preventDefault();
      button.click();
    }
  });
})();
