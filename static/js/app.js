// tiercards: the little the pages need beyond htmx. No inline scripts (the CSP forbids them).
(function () {
  "use strict";

  function csrfToken() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  // Every htmx request carries the CSRF token; forms also send it as a field for no-JS use.
  document.addEventListener("htmx:configRequest", function (event) {
    event.detail.headers["X-CSRF-Token"] = csrfToken();
    var form = event.detail.elt.closest ? event.detail.elt.closest("form") : null;
    var timer = form && form.querySelector("[data-timer]");
    if (timer && timer._elapsed) {
      event.detail.parameters["seconds"] = timer._elapsed().toFixed(1);
    }
  });

  // A request that failed outright (server error, network) says so instead of doing nothing.
  document.addEventListener("htmx:responseError", function (event) {
    showError("The server answered " + event.detail.xhr.status + ". Nothing you typed was lost; try again.");
  });
  document.addEventListener("htmx:sendError", function () {
    showError("Could not reach the server. Nothing you typed was lost; try again.");
  });

  function showError(text) {
    var toast = document.getElementById("request-error");
    if (!toast) return;
    toast.textContent = text;
    toast.hidden = false;
    setTimeout(function () { toast.hidden = true; }, 6000);
  }

  function format(seconds) {
    var whole = Math.floor(Math.abs(seconds));
    var m = Math.floor(whole / 60), s = whole % 60;
    return m + ":" + (s < 10 ? "0" : "") + s;
  }

  // A clock's text after `taken` seconds: a countdown from data-limit seconds that runs into
  // overtime and never locks anyone out; without data-limit it counts up. (card.js shows its
  // answer clocks with it too.)
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
  window.tiercards = { showTime: showTime };

  // data-start="load" starts the clock at once, "focus" on first focus.
  // data-elapsed: seconds already taken (a refused submit sent back with its answer).
  function startTimer(el) {
    if (el._started) return;
    el._started = true;
    var begin = performance.now() - 1000 * (parseFloat(el.dataset.elapsed) || 0);
    el._elapsed = function () { return (performance.now() - begin) / 1000; };
    function tick() {
      if (!document.body.contains(el)) return;
      showTime(el, el._elapsed());
      setTimeout(tick, 250);
    }
    tick();
  }

  function initTimers(root) {
    root.querySelectorAll("[data-timer]").forEach(function (el) {
      if (el.dataset.start === "focus") {
        var form = el.closest("form");
        if (form) form.addEventListener("focusin", function () { startTimer(el); }, { once: true });
        if (form) form.addEventListener("change", function () { startTimer(el); }, { once: true });
      } else {
        startTimer(el);
      }
    });
  }

  function init(root) {
    initTimers(root);
    // Fill the seconds field for forms posted without htmx too.
    root.querySelectorAll("form").forEach(function (form) {
      form.addEventListener("submit", function () {
        var timer = form.querySelector("[data-timer]");
        var field = form.querySelector("[data-timer-seconds]");
        if (timer && field && timer._elapsed) field.value = timer._elapsed().toFixed(1);
      });
    });
  }

  // Say what an in-page update changed in the one polite live region. Emptied first, so the same
  // words said twice (rating "good" again) are read out again.
  function announce(text) {
    var region = document.getElementById("announcer");
    text = (text || "").replace(/\s+/g, " ").trim();
    if (!region || !text) return;
    region.textContent = "";
    setTimeout(function () { region.textContent = text; }, 50);
  }

  // Updates a person asked for by pressing something (a button, a link, a form's submit), as
  // opposed to ones that arrive on their own (polling, loading on page load) or while typing
  // (live search): only those move focus.
  function activated(detail) {
    var config = detail.requestConfig || {};
    var trigger = config.triggeringEvent;
    return !!trigger && (trigger.type === "click" || trigger.type === "submit");
  }

  function typedInto(detail) {
    var trigger = (detail.requestConfig || {}).triggeringEvent;
    return !!trigger && (trigger.type === "input" || trigger.type === "change" || trigger.type === "keyup");
  }

  // Where focus was before each swap, by the id of the element swapped, described so that its
  // equivalent can be found in the new content.
  var focusBefore = {};
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    var active = document.activeElement;
    if (!target || !target.id || !active) return;
    focusBefore[target.id] = {
      id: active.id,
      name: active.getAttribute("name"),
      value: active.getAttribute("value"),
      tag: active.tagName
    };
  });

  function sameControl(root, was) {
    if (!was) return null;
    if (was.id) {
      var byId = document.getElementById(was.id);
      if (byId && root.contains(byId)) return byId;
    }
    if (!was.name) return null;
    var candidates = root.querySelectorAll(was.tag + '[name="' + CSS.escape(was.name) + '"]');
    for (var i = 0; i < candidates.length; i++) {
      if (candidates[i].getAttribute("value") === was.value) return candidates[i];
    }
    return null;
  }

  // The element a swap put in place: the target itself (swapped inside), or the new element that
  // took its id (swapped whole).
  function swappedIn(detail, fallback) {
    var target = detail.target;
    if (target && document.body.contains(target)) return target;
    return (target && target.id && document.getElementById(target.id)) || fallback;
  }

  var FIELDS = "[aria-invalid=true], textarea, select, input:not([type=hidden])";

  // After an update a person asked for, focus goes to the new content's heading, so keyboard and
  // screen reader users carry on from there rather than from the top of the page. Where the update
  // refused the input, focus goes to the first field to fix instead (the message, role=alert, reads
  // itself out); where the new content has no heading, back to the control they pressed.
  // The live region says what changed: the content's data-announce, its status message, or its
  // heading. htmx reports each settled element of one swap with the same details: one counts.
  var handled = new WeakSet();
  document.addEventListener("htmx:afterSettle", function (event) {
    var detail = event.detail;
    if (!detail || handled.has(detail) || !(event.target instanceof Element)) return;
    handled.add(detail);
    var root = swappedIn(detail, event.target);
    if (!document.body.contains(root)) return;
    var was = focusBefore[root.id];
    delete focusBefore[root.id];
    var refused = root.querySelector(".errors, [role=alert]");
    var heading = root.matches("h1, h2, h3, h4") ? root : root.querySelector("h1, h2, h3, h4");
    var status = root.querySelector("[role=status]");
    var note = root.matches("[data-announce]") ? root : root.querySelector("[data-announce]");
    if (note) {
      announce(note.getAttribute("data-announce"));
    } else if (!refused && (activated(detail) || typedInto(detail))) {
      announce((status && status.textContent) || (heading && heading.textContent));
    }
    if (!activated(detail)) return;
    var target = refused
      ? root.querySelector(FIELDS) || root
      : heading || sameControl(root, was) || root;
    if (!target.matches("a[href], button, " + FIELDS) && !target.hasAttribute("tabindex")) {
      target.setAttribute("tabindex", "-1");
    }
    target.focus();
  });

  // A box that scrolls sideways (a wide table or code on a phone) can be scrolled from the
  // keyboard: it joins the tab order while it scrolls.
  function scrollables(root) {
    root.querySelectorAll(".table-wrap, pre, .timeline-scroll").forEach(function (box) {
      if (box.scrollWidth > box.clientWidth + 1) {
        if (!box.hasAttribute("tabindex")) box.setAttribute("tabindex", "0");
      } else if (box.getAttribute("tabindex") === "0") {
        box.removeAttribute("tabindex");
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    init(document);
    scrollables(document);
    document.body.addEventListener("htmx:load", function (event) {
      if (event.detail.elt !== document.body) init(event.detail.elt);
    });
    document.body.addEventListener("htmx:afterSettle", function () { scrollables(document); });
    window.addEventListener("resize", function () { scrollables(document); });
  });
})();
