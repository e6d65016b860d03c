// Starts the vendored Swagger UI on /docs (kept out of the page: the CSP forbids inline scripts).
(function () {
  // The page's own token: signed in, it belongs to the sign-in session, not to any cookie.
  function csrfToken() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.getAttribute("content") : null;
  }

  // "Try it out" sends cookies but not the CSRF token the server wants on every write; add it,
  // and only for this site: the token must never go to another origin a schema's server list
  // might name.
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
