// The mock interview's keys: Ctrl+Enter (or Cmd+Enter) submits the answer being typed, 1-4 rate it
// (again, hard, good, easy) once the answer is shown. In a text box the digits type; Esc leaves it.
// Space starts and stops recording, P plays the question again.
//
// The question said aloud (templates/_interview_question.html): "Hear the question" plays it.
// Hands-free (a box the person ticks, remembered in this browser): each question plays as it
// appears, recording starts when it ends (at once where there is no sound), and recorder.js stops,
// sends and submits by itself.
//
// A session timed as a whole counts its time down in the heading; at zero it says the answer being
// given is the last (the server ends the session when that answer comes).
(function () {
  "use strict";

  var typing = window.tiercards.keys.typing;
  var HANDS_FREE = "tiercards.interview.handsFree";

  function step() {
    return document.getElementById("interview-step");
  }

  function shortcut(name) {
    var section = step();
    return section ? section.querySelector('[data-shortcut="' + name + '"]') : null;
  }

  function visible(section, selector) {
    var button = section.querySelector(selector);
    return button && !button.hidden && !button.disabled ? button : null;
  }

  // Space: stop a recording, else start one (what the recorder's own buttons would do).
  function toggleRecording() {
    var section = step();
    if (!section) return null;
    return visible(section, "[data-recorder-stop]") || visible(section, "[data-recorder-start]");
  }

  // The person's last choice in this browser; before any, on in a spoken session.
  function remembered(box) {
    var stored = null;
    try {
      stored = window.localStorage.getItem(HANDS_FREE);
    } catch (error) {
      // Private mode: no choice kept.
    }
    return stored ? stored === "on" : box.hasAttribute("data-default-on");
  }

  function remember(on) {
    try {
      window.localStorage.setItem(HANDS_FREE, on ? "on" : "off");
    } catch (error) {
      // Private mode: the box still works for this page.
    }
  }

  function record(section) {
    var start = visible(section, "[data-recorder-start]");
    if (start) start.click();
  }

  // A question as it appears: its controls shown (they need scripts), and in hands-free mode
  // played, then recorded.
  function ask(section) {
    var voice = section.querySelector("[data-interview-voice]");
    if (!voice || voice.dataset.ready) return;
    voice.dataset.ready = "1";
    var audio = voice.querySelector("[data-question-audio]");
    var play = voice.querySelector("[data-play-question]");
    var box = voice.querySelector("[data-hands-free]");
    var recorder = section.querySelector("[data-recorder]");
    var canRecord = recorder && !recorder.classList.contains("refused");
    voice.querySelector(".hands-free").hidden = !canRecord;
    voice.querySelector("[data-voice-hint]").hidden = !canRecord;
    box.checked = canRecord && remembered(box);
    box.addEventListener("change", function () { remember(box.checked); });
    if (audio) {
      play.hidden = false;
      play.addEventListener("click", function () {
        audio.currentTime = 0;
        audio.play();
      });
      audio.addEventListener("ended", function () {
        if (box.checked) record(section);
      });
    }
    if (!box.checked) return;
    if (!audio) {
      record(section);
      return;
    }
    var playing = audio.play();
    if (playing && playing.catch) {
      // The browser plays sound only after the person has used the page: one key or click.
      playing.catch(function () { play.focus(); });
    }
  }

  // As templates/_interview_heading.html writes it: 42 s, 1:15.
  function clock(seconds) {
    if (seconds < 60) return seconds + " s";
    var rest = seconds % 60;
    return Math.floor(seconds / 60) + ":" + (rest < 10 ? "0" : "") + rest;
  }

  var ticking = null;

  function countDown(section) {
    if (ticking) window.clearInterval(ticking);
    ticking = null;
    var shown = section.querySelector("[data-session-clock]");
    if (!shown) return;
    var ends = Date.now() + Number(shown.dataset.left) * 1000;
    var of = shown.textContent.replace(/^.* left /, " left ");
    function tick() {
      var left = Math.max(0, Math.round((ends - Date.now()) / 1000));
      if (left > 0) {
        shown.textContent = clock(left) + of;
        return;
      }
      shown.textContent = "Time is up: this answer is the last";
      shown.classList.add("over");
      window.clearInterval(ticking);
    }
    tick();
    ticking = window.setInterval(tick, 1000);
  }

  function arrived(section) {
    ask(section);
    countDown(section);
  }

  document.addEventListener("DOMContentLoaded", function () {
    var section = step();
    if (section) arrived(section);
    document.body.addEventListener("htmx:load", function (event) {
      var elt = event.detail.elt;
      if (elt && elt.id === "interview-step") arrived(elt);
    });
  });

  document.addEventListener("keydown", function (event) {
    if (!step() || event.defaultPrevented || event.repeat) return;
    var target = event.target;
    var button = null;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      button = shortcut("submit");
    } else if (event.ctrlKey || event.metaKey || event.altKey) {
      return;
    } else if (event.key === "Escape" && typing(target)) {
      target.blur();
      return;
    } else if (typing(target)) {
      return;
    } else if (/^[1-4]$/.test(event.key)) {
      button = shortcut(event.key);
    } else if (event.key === " " && !(target.closest && target.closest("button, a, summary, input, select"))) {
      button = toggleRecording();
    } else if (event.key === "p" || event.key === "P") {
      button = visible(step(), "[data-play-question]");
    }
    if (button && !button.disabled) {
      event.preventDefault();
      // A click, so htmx sends the pressed button's rating with the form.
      button.click();
    }
  });
})();
