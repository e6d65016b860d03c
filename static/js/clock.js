// The answer clock: how long a person takes to answer, shown as a countdown from the answer's
// budget, and sent as `seconds` with the form it times, by htmx or by a plain submit.
// Clocks marked [data-timer] run by themselves: data-start="load" starts one at once, "focus" on
// its form's first focus or change; data-elapsed gives seconds already taken (a refused submit
// sent back with its answer). card.js runs the card page's answer clocks with the same pieces.
(function () {
  "use strict";

  // A length as the server prints one (app/web/timefmt.py clock): "17 s", "1:15".
  function length(seconds) {
    var whole = Math.round(seconds);
    return whole < 60 ? whole + " s" : format(whole);
  }

  function format(seconds) {
    var whole = Math.floor(Math.abs(seconds));
    var m = Math.floor(whole / 60), s = whole % 60;
    return m + ":" + (s < 10 ? "0" : "") + s;
  }

  // A clock's text after `taken` seconds: a countdown from data-limit seconds that runs into
  // overtime and never locks anyone out; without data-limit it counts up.
  function showTime(el, taken) {
    var limit = parseFloat(el.dataset.limit || "");
    if (isNaN(limit)) {
      el.textContent = format(taken);
    } else if (taken <= limit) {
      // Round the time left up, as a countdown does: "0:20" for the whole first second.
      el.textContent = format(Math.ceil(limit - taken)) + " left";
      el.classList.remove("overtime");
    } else {
      el.classList.add("overtime");
      el.textContent = "+" + format(taken - limit) + " over";
    }
  }

  // Seconds taken: `before`, from earlier runs, and the run since `since` (null while paused).
  function Clock(before) {
    this.before = before || 0;
    this.since = null;
  }
  Clock.prototype.elapsed = function () {
    return this.before + (this.since === null ? 0 : (performance.now() - this.since) / 1000);
  };
  Clock.prototype.running = function () {
    return this.since !== null;
  };
  Clock.prototype.start = function () {
    if (this.since === null) this.since = performance.now();
  };
  Clock.prototype.pause = function () {
    this.before = this.elapsed();
    this.since = null;
  };

  // Calls `step` now and every quarter of a second for as long as it returns true.
  function every(step) {
    if (step()) setTimeout(function () { every(step); }, 250);
  }

  // The clock each form sends the time of; a form without one sends its seconds field as it is.
  var timing = new WeakMap();

  function times(form, clock) {
    if (clock) timing.set(form, clock);
    else timing.delete(form);
  }

  function of(form) {
    return (form && timing.get(form)) || null;
  }

  function taken(form) {
    var clock = of(form);
    return clock ? clock.elapsed().toFixed(1) : null;
  }

  // The form a request sends: the form itself, or the form of the button that submitted it. An
  // element inside a form that makes requests of its own (a recording polling for its
  // transcript) sends no form, so it carries no seconds and ends no answer.
  function sender(elt) {
    if (!elt || !elt.tagName) return null;
    return elt.tagName === "FORM" ? elt : elt.form || null;
  }

  // Sent on a form when answering starts some other way than typing (a recording): its clock runs.
  var ANSWERING = "tiercards:answering";

  document.addEventListener("htmx:configRequest", function (event) {
    var seconds = taken(sender(event.detail.elt));
    if (seconds !== null) event.detail.parameters.seconds = seconds;
  });

  // Without htmx a form posts itself: the seconds go in its field.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    var field = form.querySelector("[data-timer-seconds]");
    var seconds = taken(form);
    if (field && seconds !== null) field.value = seconds;
  });

  function run(el) {
    if (el._clock) return;
    var clock = el._clock = new Clock(parseFloat(el.dataset.elapsed) || 0);
    clock.start();
    var form = el.closest("form");
    if (form) times(form, clock);
    every(function () {
      if (!document.body.contains(el)) return false;
      showTime(el, clock.elapsed());
      return true;
    });
  }

  function runAll(root) {
    root.querySelectorAll("[data-timer]").forEach(function (el) {
      var form = el.closest("form");
      if (el.dataset.start !== "focus") {
        run(el);
      } else if (form) {
        form.addEventListener("focusin", function () { run(el); }, { once: true });
        form.addEventListener("change", function () { run(el); }, { once: true });
      }
      // A clock paused when a recording stopped runs again with the next one.
      if (form) {
        form.addEventListener(ANSWERING, function () {
          if (el._clock) el._clock.start();
          else run(el);
        });
      }
    });
  }

  window.tiercards = window.tiercards || {};
  window.tiercards.clock = {
    Clock: Clock, every: every, format: format, length: length, showTime: showTime, times: times, of: of, sender: sender, ANSWERING: ANSWERING
  };

  document.addEventListener("DOMContentLoaded", function () {
    runAll(document);
    document.body.addEventListener("htmx:load", function (event) {
      if (event.detail.elt !== document.body) runAll(event.detail.elt);
    });
  });
})();
