// Starts the vendored Swagger UI on /docs (kept out of the page: the CSP forbids inline scripts).
(function () {
  var CSRF_COOKIE = "tiercards_csrf";

  function csrfToken() {
    var pairs = document.cookie.split(";");
    for (var i = 0; i < pairs.length; i++) {
      var pair = pairs[i].trim();
      if (pair.indexOf(CSRF_COOKIE + "=") === 0) return pair.slice(CSRF_COOKIE.length + 1);
    }
    return null;
  }

  // "Try it out" sends cookies but not the CSRF token the server wants on every write; add it,
  // read fresh each time (the server may have issued a new cookie), and only for this site: the
  // token must never go to another origin a schema's server list might name.
  function withCsrf(request) {
    var token = csrfToken();
    if (token && new URL(request.url, window.location.href).origin === window.location.origin) {
      request.headers["X-CSRF-Token"] = token;
    }
    return request;
  }

  window.addEventListener("load", function () {
    var target = document.getElementById("swagger-ui");
    window.SwaggerUIBundle({
      url: target.dataset.openapiUrl,
      dom_id: "#swagger-ui",
      requestInterceptor: withCsrf,
    });
  });
})();
