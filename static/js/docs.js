// Starts the vendored Swagger UI on /docs (kept out of the page: the CSP forbids inline scripts).
window.addEventListener("load", function () {
  var target = document.getElementById("swagger-ui");
  window.SwaggerUIBundle({ url: target.dataset.openapiUrl, dom_id: "#swagger-ui" });
});
