// "Copy link" on /admin/users: copies the invite link in the read-only field the button names.
// The Clipboard API needs a secure context (HTTPS, or localhost) and may be refused; then the
// field's text is selected, for Ctrl+C or a long press.
(function () {
  "use strict";

  function announce(text) {
    var announcer = document.getElementById("announcer");
    if (announcer) announcer.textContent = text;
  }

  function selectField(field) {
    field.focus();
    field.select();
    announce("Clipboard not available: the link is selected, press Ctrl+C to copy it.");
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-copy]");
    if (!button) return;
    var field = document.getElementById(button.dataset.copy);
    if (!field) return;
    if (!navigator.clipboard || !window.isSecureContext) {
      selectField(field);
      return;
    }
    navigator.clipboard.writeText(field.value).then(function () {
      button.textContent = "Copied";
      announce("Invite link copied.");
      setTimeout(function () { button.textContent = "Copy link"; }, 2000);
    }, function () { selectField(field); });
  });
})();
