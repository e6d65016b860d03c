// Answer aloud (templates/_recorder.html, inside an answer form): record with the microphone, a
// level meter so a silent one is obvious, Stop / Redo / Send. Nothing leaves the browser before
// Send. The form's own answer clock (clock.js) runs while recording. The sent recording comes back
// as a fragment that polls itself until transcribed; its transcript then fills the form's answer
// box to be checked, and the form sends the recording's id with it.
// Hands-free (a checked [data-hands-free] box in the same [data-interview] section, with its
// data-silence-seconds): a recording stops itself after that long without speech once speech was
// heard, is sent without Send, and its transcript is submitted without Submit.
(function () {
  "use strict";

  var clockKit = window.tiercards.clock;

  // Opus, as the server decodes it, else AAC in MP4 (all Safari records); 32 kbit/s is plenty
  // for speech and keeps uploads small.
  var TYPES = ["audio/webm;codecs=opus", "audio/ogg;codecs=opus", "audio/mp4"];
  var BITS_PER_SECOND = 32000;
  var METER_EVERY_MS = 100;
  // The meter's words change at most this often, so a screen reader is not flooded; this long
  // without sound says the microphone gives none.
  var WORDS_EVERY_MS = 2000;
  var QUIET = 0.01, LOW = 0.04;

  var NO_MICROPHONE = "This browser gives the page no microphone, so answer by typing.";
  var NO_FORMAT = "This browser cannot record in a format this server reads (Opus or AAC), so answer by typing.";
  var NOT_SECURE = "The browser gives a microphone only to pages served over HTTPS, so answer by typing.";
  var REFUSALS = {
    NotAllowedError: "The microphone is blocked for this page, so answer by typing " +
      "(allow it in the browser's site settings to answer aloud).",
    SecurityError: "The microphone is blocked for this page, so answer by typing.",
    NotFoundError: "No microphone was found, so answer by typing.",
    OverconstrainedError: "No microphone was found, so answer by typing.",
    NotReadableError: "The microphone could not be started (another program may be using it), so answer by typing."
  };

  var active = null;  // the one recorder recording right now

  function recordingType() {
    if (!window.MediaRecorder || !MediaRecorder.isTypeSupported) return null;
    for (var i = 0; i < TYPES.length; i++) {
      if (MediaRecorder.isTypeSupported(TYPES[i])) return TYPES[i];
    }
    return null;
  }

  function unsupported() {
    if (window.isSecureContext === false) return NOT_SECURE;
    var media = navigator.mediaDevices;
    if (!media || !media.getUserMedia || !window.MediaRecorder) return NO_MICROPHONE;
    return recordingType() ? null : NO_FORMAT;
  }

  function csrfToken(form) {
    var field = form.querySelector('input[name="csrf_token"]');
    var meta = document.querySelector('meta[name="csrf-token"]');
    return (field && field.value) || (meta && meta.content) || "";
  }

  function Recorder(el) {
    this.el = el;
    this.form = el.closest("form");
    this.box = this.form.querySelector('textarea[name="text"]');
    this.part = function (name) { return el.querySelector("[data-" + name + "]"); };
    this.status = this.part("recorder-status");
    this.slot = this.part("recording-slot");
    this.buttons = {
      start: this.part("recorder-start"),
      stop: this.part("recorder-stop"),
      send: this.part("recorder-send"),
      redo: this.part("recorder-redo")
    };
    this.take = null;  // the recording not sent yet: {blob, seconds}
    el._recorder = this;
    var self = this;
    this.buttons.start.addEventListener("click", function () { self.record(); });
    this.buttons.stop.addEventListener("click", function () { self.stop(null); });
    this.buttons.redo.addEventListener("click", function () { self.redo(); });
    this.buttons.send.addEventListener("click", function () { self.send(); });
    // Edits keep the recording (the text is the edited transcript); an emptied box does not.
    this.box.addEventListener("input", function () {
      if (!self.box.value.trim()) self.forget();
    });
    el.hidden = false;
    var why = unsupported();
    if (why) this.refuse(why);
  }

  Recorder.prototype.handsFree = function () {
    var section = this.el.closest("[data-interview]");
    var box = section && section.querySelector("[data-hands-free]");
    return box && box.checked ? parseFloat(box.dataset.silenceSeconds) || 3 : 0;
  };

  Recorder.prototype.say = function (text) {
    var status = this.status;
    status.classList.remove("visually-hidden");
    status.textContent = "";
    // Emptied first, so the same words said twice are read out again.
    setTimeout(function () { status.textContent = text; }, 50);
  };

  // Only these buttons show; focus goes to `focus` when given.
  Recorder.prototype.show = function (names, focus) {
    var buttons = this.buttons;
    Object.keys(buttons).forEach(function (name) {
      buttons[name].hidden = names.indexOf(name) < 0;
      buttons[name].disabled = false;
    });
    if (focus) buttons[focus].focus();
  };

  // No microphone to be had: one sentence says why, and typing is as it was.
  Recorder.prototype.refuse = function (why) {
    this.show(["start"]);
    if (unsupported()) this.buttons.start.hidden = true;
    this.part("recorder-privacy").hidden = !!unsupported();
    this.el.classList.add("refused");
    this.say(why);
  };

  Recorder.prototype.clockTimer = function () {
    return this.form.querySelector("[data-answer-timer], [data-timer]");
  };

  // The transcript's recording goes with the form only while the box holds that transcript.
  Recorder.prototype.forget = function () {
    this.part("recording-id").value = "";
  };

  Recorder.prototype.record = function () {
    var self = this;
    if (active && active !== this) active.stop();
    this.forget();
    this.buttons.start.disabled = true;
    this.say("Asking for the microphone…");
    navigator.mediaDevices.getUserMedia({ audio: true }).then(function (stream) {
      if (!document.body.contains(self.el)) {
        stream.getTracks().forEach(function (track) { track.stop(); });
        return;
      }
      self.begin(stream);
    }, function (error) {
      self.refuse(REFUSALS[error && error.name] || NO_MICROPHONE);
    });
  };

  Recorder.prototype.begin = function (stream) {
    var self = this, type = recordingType(), chunks = [];
    this.stream = stream;
    this.media = new MediaRecorder(stream, { mimeType: type, audioBitsPerSecond: BITS_PER_SECOND });
    this.media.addEventListener("dataavailable", function (event) {
      if (event.data && event.data.size) chunks.push(event.data);
    });
    this.media.addEventListener("stop", function () {
      // A timer fires late on a busy page; the take is cut at the limit all the same.
      var seconds = Math.min((performance.now() - self.began) / 1000, self.maxSeconds);
      self.take = { blob: new Blob(chunks, { type: type }), seconds: seconds };
      if (self.handsFree()) {
        self.send();
        return;
      }
      self.show(["send", "redo"], "send");
      self.say((self.reason || "Recorded " + clockKit.length(self.take.seconds)) + ". Send it to be transcribed, or Redo.");
    });
    this.el.classList.remove("refused");
    this.el.classList.add("recording");
    this.take = null;
    this.began = performance.now();
    this.media.start(1000);
    active = this;
    this.form.dispatchEvent(new CustomEvent(clockKit.ANSWERING));
    this.meter(stream);
    var limit = this.maxSeconds = parseFloat(this.el.dataset.maxSeconds);
    this.limit = setTimeout(function () {
      self.stop("Stopped at the " + clockKit.format(limit) + " limit");
    }, limit * 1000);
    this.show(["stop"], "stop");
    this.say("Recording. Press Stop when you have finished.");
  };

  // The level of the microphone's sound: a bar drawn often, and words for screen readers that
  // change rarely, saying so once when it has been silent a while.
  Recorder.prototype.meter = function (stream) {
    var self = this, level = this.part("recorder-level"), fill = this.part("level-fill");
    var words = this.part("level-text");
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    var context = this.context = new Context();
    var analyser = context.createAnalyser();
    analyser.fftSize = 1024;
    context.createMediaStreamSource(stream).connect(analyser);
    var samples = new Float32Array(analyser.fftSize);
    // The words say the loudest sound since they last changed, and first after one full
    // stretch: one sample taken as the microphone opens would say "none" over speech.
    var heard = performance.now(), said = heard, loudest = 0, warned = false, spoke = false;
    level.hidden = false;
    words.textContent = "sound: listening";
    this.metering = setInterval(function () {
      // The form was sent or swapped away mid-recording: let go of the microphone.
      if (!document.body.contains(self.el)) {
        self.stop();
        return;
      }
      analyser.getFloatTimeDomainData(samples);
      var sum = 0;
      for (var i = 0; i < samples.length; i++) sum += samples[i] * samples[i];
      var rms = Math.sqrt(sum / samples.length), now = performance.now();
      // On a square-root scale, so quiet speech still moves the bar.
      fill.style.width = Math.min(100, Math.round(Math.sqrt(rms) * 250)) + "%";
      if (rms >= QUIET) {
        heard = now;
        warned = false;
        spoke = true;
      }
      var silence = self.handsFree();
      if (silence && spoke && now - heard >= silence * 1000) {
        self.stop("Stopped after " + silence + " s of silence");
        return;
      }
      loudest = Math.max(loudest, rms);
      if (now - said < WORDS_EVERY_MS) return;
      said = now;
      words.textContent = loudest < QUIET ? "sound: none" : loudest < LOW ? "sound: quiet" : "sound: good";
      loudest = 0;
      if (!warned && now - heard >= WORDS_EVERY_MS) {
        warned = true;
        self.say("No sound from the microphone for 2 seconds: check that it is on and not muted.");
      }
    }, METER_EVERY_MS);
  };

  // `reason`: what stopped it, when not the person (the time limit).
  Recorder.prototype.stop = function (reason) {
    if (!this.media || this.media.state === "inactive") return;
    this.reason = reason;
    clearTimeout(this.limit);
    clearInterval(this.metering);
    this.media.stop();
    this.stream.getTracks().forEach(function (track) { track.stop(); });
    if (this.context) this.context.close();
    this.part("recorder-level").hidden = true;
    this.el.classList.remove("recording");
    if (active === this) active = null;
    var clock = clockKit.of(this.form), timer = this.clockTimer();
    if (clock) {
      clock.pause();
      if (timer) clockKit.showTime(timer, clock.elapsed());
    }
  };

  Recorder.prototype.redo = function () {
    this.take = null;
    this.show(["start"], "start");
    this.say("Recording discarded. Press Answer aloud to record again.");
  };

  Recorder.prototype.send = function () {
    var self = this, take = this.take, data = new FormData();
    if (!take) return;
    var extension = take.blob.type.split(";")[0].split("/")[1];
    data.append("audio", take.blob, "answer." + extension);
    data.append("tier", this.el.dataset.tier);
    data.append("kind", this.el.dataset.kind);
    if (this.el.dataset.followUp) data.append("follow_up", this.el.dataset.followUp);
    data.append("seconds", take.seconds.toFixed(1));
    data.append("csrf_token", csrfToken(this.form));
    this.buttons.send.disabled = this.buttons.redo.disabled = true;
    this.say("Sending…");
    fetch(this.el.dataset.action, {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { "HX-Request": "true", "X-CSRF-Token": csrfToken(this.form) }
    }).then(function (response) {
      return response.text().then(function (html) { self.answered(response, html); });
    }, function () {
      self.show(["send", "redo"], "send");
      self.say("Could not reach the server. Your recording is kept: press Send to try again.");
    });
  };

  // The server's fragment: the recording on its way, or a refusal in a sentence. Either way it
  // shows; a refusal keeps the recording, in case sending again later helps (two already waiting).
  Recorder.prototype.answered = function (response, html) {
    var fragment = /^text\/html/.test(response.headers.get("content-type") || "");
    if (!fragment || response.status >= 500) {
      this.show(["send", "redo"], "send");
      this.say("The server answered " + response.status + ". Your recording is kept: press Send to try again.");
      return;
    }
    this.slot.innerHTML = html;
    htmx.process(this.slot);
    if (response.ok) {
      this.take = null;
      this.show([]);
      this.status.textContent = "";
    } else {
      this.forget();
      this.show(["send", "redo"]);
    }
    this.slot.focus();
    var section = this.slot.querySelector("[data-recording]");
    if (section) arrived(section);
  };

  // Transcribed: the transcript replaces the answer box's text for the person to check and edit,
  // and the form sends the recording with it. Failed: the fragment says why; typing stays.
  Recorder.prototype.settled = function (section) {
    var state = section.dataset.status;
    if (state !== "done" && state !== "failed") return;
    this.buttons.start.textContent = "Record again";
    this.show(["start"]);
    if (state === "failed") {
      this.forget();
      return;
    }
    this.box.value = section.dataset.transcript || "";
    this.part("recording-id").value = section.dataset.recording;
    // As typing would: the answer's draft keeps the transcript and its recording.
    this.box.dispatchEvent(new Event("input", { bubbles: true }));
    if (this.handsFree()) {
      // Hands-free: the transcript is the answer; the next question follows.
      var submit = this.form.querySelector('[data-shortcut="submit"]');
      if (submit) {
        this.say("Transcript ready: sending your answer");
        submit.click();
        return;
      }
    }
    this.box.focus();
    this.say("Transcript ready: check it, then submit");
    // Announced, but not shown twice: the transcribed recording below says it on the page.
    this.status.classList.add("visually-hidden");
  };

  var handled = new WeakSet();

  function arrived(section) {
    var el = section.closest("[data-recorder]");
    if (!el || !el._recorder || handled.has(section)) return;
    handled.add(section);
    el._recorder.settled(section);
  }

  function setUp(root) {
    root.querySelectorAll("[data-recorder]").forEach(function (el) {
      if (!el._recorder) new Recorder(el);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    setUp(document);
    document.body.addEventListener("htmx:load", function (event) {
      var elt = event.detail.elt;
      if (elt === document.body || !elt.querySelectorAll) return;
      if (elt.matches("[data-recording]")) arrived(elt);
      else setUp(elt);
    });
  });
})();
