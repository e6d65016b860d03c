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
      tag: active.tagName,
      inside: target.contains(active)
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
  // The model's reading, when it arrives, re-ticks the checklist its answer's suggestion pre-ticked
  // (data-suggested-for: unrated), unless the person has already changed a box there: their ticks
  // are never overwritten.
  document.addEventListener("change", function (event) {
    var box = event.target;
    var checklist = box instanceof Element ? box.closest(".checklist") : null;
    if (checklist) checklist.setAttribute("data-touched", "");
  });
  function reTick(suggestion) {
    var attempt = suggestion.getAttribute("data-attempt");
    var checklist = document.querySelector('.checklist[data-suggested-for="' + attempt + '"]');
    if (!checklist || checklist.hasAttribute("data-touched")) return;
    var covered = suggestion.getAttribute("data-covered").split(" ");
    checklist.querySelectorAll("input[name=points]").forEach(function (box) {
      box.checked = covered.indexOf(box.value) >= 0;
    });
  }
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
    if (root.matches(".suggestion[data-reading=done][data-announce]")) reTick(root);
    if (note) {
      announce(note.getAttribute("data-announce"));
    } else if (!refused && (activated(detail) || typedInto(detail))) {
      announce((status && status.textContent) || (heading && heading.textContent));
    }
    if (!activated(detail)) {
      // An update that arrived on its own (the model's suggestion replacing the word-overlap one)
      // moves focus only when it replaced what had it, which would otherwise fall to the page's top.
      if (was && was.inside && (!document.activeElement || document.activeElement === document.body)) {
        if (!root.hasAttribute("tabindex")) root.setAttribute("tabindex", "-1");
        root.focus();
      }
      return;
    }
    var target = refused
      ? root.querySelector(FIELDS) || root
      : heading || sameControl(root, was) || root;
    if (!target.matches("a[href], button, " + FIELDS) && !target.hasAttribute("tabindex")) {
      target.setAttribute("tabindex", "-1");
    }
    target.focus();
  });

  // A table's cue that it scrolls sideways: a line above it, until it has been scrolled to its end.
  function cue(box, scrolls) {
    var line = box.previousElementSibling;
    if (!line || !line.classList.contains("scroll-cue")) {
      if (!scrolls) return;
      line = document.createElement("p");
      line.className = "scroll-cue";
      line.setAttribute("aria-hidden", "true");
      line.textContent = "More columns: scroll the table sideways →";
      box.parentNode.insertBefore(line, box);
      box.addEventListener("scroll", function () {
        line.hidden = box.scrollLeft + box.clientWidth >= box.scrollWidth - 2;
      });
    }
    line.hidden = !scrolls;
  }

  // A box that scrolls sideways (a wide table or code on a phone) can be scrolled from the
  // keyboard: it joins the tab order while it scrolls. A table's box shows that it scrolls.
  function scrollables(root) {
    root.querySelectorAll(".table-wrap, pre, .timeline-scroll").forEach(function (box) {
      var scrolls = box.scrollWidth > box.clientWidth + 1;
      if (scrolls) {
        if (!box.hasAttribute("tabindex")) box.setAttribute("tabindex", "0");
      } else if (box.getAttribute("tabindex") === "0") {
        box.removeAttribute("tabindex");
      }
      if (box.classList.contains("table-wrap")) {
        box.classList.toggle("scrolls", scrolls);
        cue(box, scrolls);
      }
    });
  }

  // Whether a key pressed in `el` types into it: the pages' single-key shortcuts stay out of its way.
  function typing(el) {
    if (!el || !el.tagName) return false;
    if (el.isContentEditable) return true;
    var tag = el.tagName;
    if (tag === "TEXTAREA" || tag === "SELECT") return true;
    if (tag !== "INPUT") return false;
    return !/^(checkbox|radio|button|submit|reset|range|color|file)$/i.test(el.type);
  }

  window.tiercards = window.tiercards || {};
  window.tiercards.keys = { typing: typing };

  document.addEventListener("DOMContentLoaded", function () {
    // A page that opens on news (saved, refused) starts there, so a screen reader reads it first.
    var news = document.querySelector("[data-autofocus]");
    if (news) news.focus();
    scrollables(document);
    document.body.addEventListener("htmx:afterSettle", function () { scrollables(document); });
    window.addEventListener("resize", function () { scrollables(document); });
  });
})();
