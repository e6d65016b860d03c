// The mock interview's keys: Ctrl+Enter (or Cmd+Enter) submits the answer being typed, 1-4 rate it
// (again, hard, good, easy) once the answer is shown. In a text box the digits type; Esc leaves it.
(function () {
  "use strict";

  var typing = window.tiercards.keys.typing;

  function shortcut(name) {
    var step = document.getElementById("interview-step");
    return step ? step.querySelector('[data-shortcut="' + name + '"]') : null;
  }

  document.addEventListener("keydown", function (event) {
    if (!document.getElementById("interview-step") || event.defaultPrevented || event.repeat) return;
    var target = event.target;
    var button = null;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      button = shortcut("submit");
    } else if (event.ctrlKey || event.metaKey || event.altKey) {
      return;
    } else if (event.key === "Escape" && typing(target)) {
      target.blur();
      return;
    } else if (!typing(target) && /^[1-4]$/.test(event.key)) {
      button = shortcut(event.key);
    }
    if (button && !button.disabled) {
      event.preventDefault();
      // A click, so htmx sends the pressed button's rating with the form.
      button.click();
    }
  });
})();
