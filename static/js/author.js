// /author. A problem names a line of the card: pressing it selects that line in the text. The
// text being written is kept in this browser only (the server stores nothing), per person, so a
// reload or a link followed by mistake does not lose it.
(function () {
  "use strict";

  var PREFIX = "tiercards:author-draft:";

  function parts() {
    var form = document.getElementById("author-form");
    return form ? { form: form, box: form.querySelector("textarea[name=text]"),
                    note: form.querySelector("[data-draft-note]") } : null;
  }

  // A served card opened from its page keeps a draft of its own: opening it never brings back
  // the text of another card, nor loses the new card being written.
  function storageKey(form) {
    var card = form.dataset.card ? ":" + form.dataset.card : "";
    return PREFIX + (form.dataset.owner || "") + card;
  }

  function keep(page) {
    try {
      if (page.box.value === page.box.defaultValue) {
        window.localStorage.removeItem(storageKey(page.form));
      } else {
        window.localStorage.setItem(storageKey(page.form), page.box.value);
      }
    } catch (error) {
      // Storage turned off or full: the text is still in the box.
    }
  }

  function kept(form) {
    try {
      return window.localStorage.getItem(storageKey(form));
    } catch (error) {
      return null;
    }
  }

  // Puts `text` in the box and asks for its preview, as typing would.
  function replaceText(page, text) {
    page.box.value = text;
    page.box.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function selectLine(box, line) {
    var lines = box.value.split("\n");
    var index = Math.min(Math.max(line, 1), lines.length) - 1;
    var start = 0;
    for (var i = 0; i < index; i++) start += lines[i].length + 1;
    box.focus();
    box.setSelectionRange(start, start + lines[index].length);
    // Lines that wrap make this an estimate: it brings the line near the top of the box.
    var height = parseFloat(getComputedStyle(box).lineHeight) || 20;
    box.scrollTop = Math.max(0, (index - 2) * height);
  }

  document.addEventListener("DOMContentLoaded", function () {
    var page = parts();
    if (!page || !page.box) return;
    var draft = kept(page.form);
    if (draft !== null && draft !== page.box.value) {
      replaceText(page, draft);
      if (page.note) page.note.hidden = false;
    }
    page.box.addEventListener("input", function () { keep(page); });
    document.addEventListener("click", function (event) {
      var target = event.target instanceof Element ? event.target : null;
      var line = target && target.closest("button[data-line]");
      if (line) {
        selectLine(page.box, parseInt(line.dataset.line, 10) || 1);
      } else if (target && target.closest("[data-start-over]")) {
        replaceText(page, page.box.defaultValue);
        if (page.note) page.note.hidden = true;
        page.box.focus();
      }
    });
  });
})();
