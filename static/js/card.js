// The card page's answers (the timed answer and the follow-ups), fair to the person timing them:
// - the clock starts with the first keystroke in the answer, "Start the clock" or a recording
//   (recorder.js), not when the page loads, so reading what is expected costs no time;
// - a refused submit keeps its clock running, and a reload keeps the typed answer and the time
//   taken (in this browser's storage, per person, card, depth and question) until it is sent;
// - leaving the page with an unsent answer asks first;
// - a reveal without answering sends the time taken, and the attempt is over.
// Forms opt in with data-draft="<card>:<tier>:<question>"; their clock is [data-answer-timer],
// run with clock.js, which also sends its seconds with the form.
// Also here: what gives the answer away waits until it is in, and the page's keys.
(function () {
  "use strict";

  var clockKit = window.tiercards.clock;
  var typing = window.tiercards.keys.typing;

  var PREFIX = "tiercards:draft:";
  var SAVE_EVERY_MS = 1000;
  // The person the drafts belong to: the history the page loads names them, so people taking
  // turns in one browser never see each other's answers. Drafts wait until it is known.
  var owner = null;
  // Each draft's clock, the form showing it, and when its draft was last saved, by draft key.
  // They outlive their form, so a refused form swapped back in carries on.
  var clocks = {};

  function storageKey(form) {
    return owner === null ? null : PREFIX + owner + ":" + form.dataset.draft;
  }

  // The recording a transcript in the box came from (recorder.js), sent with the answer.
  function recordingField(form) {
    return form.querySelector('input[name="recording_id"]');
  }

  function readDraft(form) {
    var key = storageKey(form);
    try {
      return key ? JSON.parse(window.localStorage.getItem(key) || "null") : null;
    } catch (error) {
      return null;  // storage turned off, or a draft from an older page: start afresh
    }
  }

  function saveDraft(form) {
    var key = storageKey(form), draft = clocks[form.dataset.draft];
    if (!key || !draft || draft.done) return;
    var text = form.querySelector("textarea").value;
    var taken = draft.clock.elapsed();
    var recording = recordingField(form);
    draft.savedAt = performance.now();
    try {
      if (text || taken > 0) {
        var kept = { text: text, elapsed: taken, recording: (text.trim() && recording && recording.value) || "" };
        window.localStorage.setItem(key, JSON.stringify(kept));
      } else {
        window.localStorage.removeItem(key);
      }
    } catch (error) {
      // Storage full or turned off: the answer is still on the page.
    }
  }

  function dropDraft(form) {
    var key = storageKey(form);
    try {
      if (key) window.localStorage.removeItem(key);
    } catch (error) {
      // Nothing was kept.
    }
  }

  function show(form) {
    var draft = clocks[form.dataset.draft];
    var el = form.querySelector("[data-answer-timer]");
    if (!draft || !el) return;
    clockKit.showTime(el, draft.clock.elapsed());
  }

  function start(form) {
    var draft = clocks[form.dataset.draft];
    if (!draft || draft.clock.running()) return;
    draft.clock.start();
    var row = form.querySelector("[data-timer-start-row]");
    if (row) row.hidden = true;
    tick(form);
  }

  // Runs while the clock does. A form swapped out stops its own ticking; the clock pauses only
  // when no form took it over (the answer was sent, or the person moved to another depth).
  function tick(form) {
    clockKit.every(function () {
      var draft = clocks[form.dataset.draft];
      if (!draft || draft.form !== form || !draft.clock.running()) return false;
      if (!document.body.contains(form)) {
        draft.clock.pause();
        saveDraft(form);
        return false;
      }
      show(form);
      if (performance.now() - (draft.savedAt || 0) >= SAVE_EVERY_MS) saveDraft(form);
      return true;
    });
  }

  // A kept draft fills an empty answer box once the owner is known; the clock shows the time it
  // had taken and carries on with the next keystroke or "Start the clock".
  function restore(form) {
    var clock = clocks[form.dataset.draft].clock;
    var box = form.querySelector("textarea");
    if (clock.running() || box.value) return;
    var draft = readDraft(form);
    if (!draft || (!draft.text && !draft.elapsed)) return;
    box.value = draft.text || "";
    var recording = recordingField(form);
    if (recording && draft.recording) recording.value = draft.recording;
    clock.before = Math.max(clock.before, Number(draft.elapsed) || 0);
    var note = form.querySelector("[data-draft-note]");
    if (note) note.hidden = false;
    var button = form.querySelector("[data-timer-start]");
    if (button) button.textContent = "Continue the clock";
    show(form);
  }

  function setUp(form) {
    var key = form.dataset.draft;
    var field = form.querySelector("[data-timer-seconds]");
    var draft = clocks[key];
    if (!draft || draft.done) {
      // The time a refused form was sent with, when the page was reloaded since.
      var before = parseFloat(field && field.value) || 0;
      draft = clocks[key] = { clock: new clockKit.Clock(before), done: false };
    }
    draft.form = form;
    clockKit.times(form, draft.clock);
    var row = form.querySelector("[data-timer-start-row]");
    if (row) row.hidden = draft.clock.running();
    var button = form.querySelector("[data-timer-start]");
    if (button) {
      button.addEventListener("click", function () {
        start(form);
        form.querySelector("textarea").focus();
      });
    }
    form.querySelector("textarea").addEventListener("input", function (event) {
      // A transcript put in the box is kept, but the clock is the person's own typing.
      if (event.isTrusted) start(form);
      saveDraft(form);
    });
    form.addEventListener(clockKit.ANSWERING, function () { start(form); });
    if (owner !== null) restore(form);
    show(form);
    if (draft.clock.running()) tick(form);
  }

  function forms(root) {
    var found = root.matches && root.matches("form[data-draft]") ? [root] : [];
    return found.concat(Array.prototype.slice.call(root.querySelectorAll("form[data-draft]")));
  }

  function learnOwner() {
    if (owner !== null) return;
    var named = document.querySelector("[data-draft-owner]");
    if (!named || !named.dataset.draftOwner) return;
    owner = named.dataset.draftOwner;
    forms(document).forEach(restore);
  }

  function draftForm(event) {
    // The element that made the request: the request's config names it once there is one
    // (a swap's own `elt` is where it lands); before that, `elt` does.
    var config = event.detail.requestConfig;
    var form = clockKit.sender((config && config.elt) || event.detail.elt);
    return form && form.matches("form[data-draft]") && clocks[form.dataset.draft] ? form : null;
  }

  // Sent and accepted: that attempt is over, so its clock and its draft go. A refused one (422)
  // comes back with its text, and its clock keeps running. Before the swap: the form is still
  // on the page to say which draft it was.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var form = draftForm(event);
    var status = event.detail.xhr ? event.detail.xhr.status : 0;
    if (!form || status < 200 || status >= 300) return;
    clocks[form.dataset.draft].done = true;
    clockKit.times(form, null);
    dropDraft(form);
    delete clocks[form.dataset.draft];
  });

  function unsent() {
    return forms(document).some(function (form) {
      var box = form.querySelector("textarea");
      return box && box.value.trim() !== "";
    });
  }

  window.addEventListener("beforeunload", function (event) {
    forms(document).forEach(saveDraft);
    if (!unsent()) return;
    event.preventDefault();
    event.returnValue = "";  // older browsers show their own question only when this is set
  });

  // The follow-ups' answers and the quiz's statements (#spoilers) open once the answer is given or
  // revealed (the answer panel then says so), when the person's history shows they answered this
  // card before, or by "Show anyway", which takes focus to what opened.
  var ANSWERED_BEFORE = 'tr.attempt[data-kind="basics"], tr.attempt[data-kind="solid"]';

  function openSpoilers(root) {
    var spoilers = document.getElementById("spoilers");
    if (!spoilers || spoilers.open) return;
    var says = function (selector) { return root.matches(selector) || root.querySelector(selector); };
    if (says('[data-spoilers="open"]') || (root.id === "history" && says(ANSWERED_BEFORE))) spoilers.open = true;
  }

  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    var show = target && target.closest("#spoilers > summary");
    if (show && !show.parentElement.open) {
      event.preventDefault();
      show.parentElement.open = true;
      var heading = show.parentElement.querySelector("h2");
      if (heading) heading.focus();
      return;
    }
    if (target && target.closest("[data-answer-shortcut]") && goToAnswer()) event.preventDefault();
  });

  // Keys, as on /practice: "a" goes to the answer box (or, once answered, to the answer), Ctrl+Enter
  // or Cmd+Enter sends an answer from its box, 1-4 rate once a rating is on the page. Out
  // of the way while typing: in a box the keys type, and Esc leaves the box.
  function goToAnswer() {
    var place = document.getElementById("answer-text") || document.getElementById("answer-heading");
    if (place) place.focus();
    return !!place;
  }

  function onScreen(el) {
    var box = el.getBoundingClientRect();
    return box.width > 0 && box.bottom > 0 && box.top < window.innerHeight;
  }

  // The rating in view (a follow-up's, once scrolled to it), else the answer's, as on /practice;
  // after a reload, the answer brought back to be rated in the history.
  function ratingButton(digit) {
    var bars = Array.prototype.filter.call(document.querySelectorAll(".assessment .rating"), onScreen);
    var bar =
      bars[0] ||
      document.querySelector("#answer-panel .assessment .rating") ||
      document.querySelector("#history .unrated .assessment .rating");
    return bar ? bar.querySelectorAll('button[name="rating"]')[digit - 1] : null;
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.repeat || event.altKey) return;
    var target = event.target;
    var form = target.closest ? target.closest("form[data-draft]") : null;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      if (form && target.tagName === "TEXTAREA") {
        event.preventDefault();
        form.requestSubmit();
      }
      return;
    }
    if (event.ctrlKey || event.metaKey) return;
    if (typing(target)) {
      if (event.key === "Escape" && form) target.blur();
      return;
    }
    if (event.key === "a" || event.key === "A") {
      if (goToAnswer()) event.preventDefault();
      return;
    }
    var button = /^[1-4]$/.test(event.key) ? ratingButton(Number(event.key)) : null;
    if (button && !button.disabled) {
      event.preventDefault();
      button.click();
    }
  });

  document.addEventListener("DOMContentLoaded", function () {
    forms(document).forEach(setUp);
    learnOwner();
    document.body.addEventListener("htmx:load", function (event) {
      if (event.detail.elt === document.body) return;
      forms(event.detail.elt).forEach(setUp);
      learnOwner();
      if (event.detail.elt instanceof Element) openSpoilers(event.detail.elt);
    });
  });
})();
