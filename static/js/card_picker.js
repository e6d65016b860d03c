// The card picker of the /team assignment form: a search box narrows the list of checkboxes to the
// cards whose title or id holds every word typed. Without this script the whole list is there and
// the box stays hidden. A ticked card stays ticked while hidden, and is still sent.
(function () {
  "use strict";

  function words(text) {
    return text.toLowerCase().split(/\s+/).filter(Boolean);
  }

  function setUp(picker) {
    var search = picker.querySelector("input[type=search]");
    var count = picker.querySelector(".picker-count");
    var items = Array.prototype.slice.call(picker.querySelectorAll(".picker-list li"));
    if (!search || !count) return;

    function show() {
      var wanted = words(search.value);
      var shown = 0;
      var chosen = 0;
      items.forEach(function (item) {
        var box = item.querySelector("input[type=checkbox]");
        var text = (item.textContent + " " + box.value).toLowerCase();
        var match = wanted.every(function (word) { return text.indexOf(word) !== -1; });
        item.hidden = !match;
        if (match) shown += 1;
        if (box.checked) chosen += 1;
      });
      count.textContent = shown + " of " + items.length + " cards shown · " + chosen + " chosen";
    }

    search.addEventListener("input", show);
    // Enter in the search box would send the form half filled in.
    search.addEventListener("keydown", function (event) {
      if (event.key === "Enter") event.preventDefault();
    });
    picker.addEventListener("change", show);
    search.closest("label").hidden = false;
    show();
  }

  document.querySelectorAll("[data-card-picker]").forEach(setUp);
})();
