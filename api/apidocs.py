"""A self-contained HTML reference at /docs, rendered from the OpenAPI schema (no CDN, no scripts)."""

from __future__ import annotations

from typing import Any

import jinja2
from fastapi import FastAPI
from fastapi.responses import HTMLResponse

from api.auth.roles import ENDPOINT_PERMISSIONS, GRANTS

_PAGE = jinja2.Environment(autoescape=True).from_string("""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Railbird review API</title>
<link rel="stylesheet" href="/console/static/console.css"></head><body><main>
<h1>{{ info.title }} {{ info.version }}</h1><p>{{ info.description }}</p>
<p>Machine-readable schema: <a href="/v1/openapi.json">/v1/openapi.json</a>. Authenticate with
<code>Authorization: Bearer &lt;token&gt;</code> (POST /v1/auth/login, or an API token from an admin).</p>
<table><thead><tr><th>Method</th><th>Path</th><th>Roles</th><th>What it does</th></tr></thead><tbody>
{% for method, path, roles, summary in rows %}<tr><td>{{ method }}</td><td><code>{{ path }}</code></td>
<td>{{ roles }}</td><td>{{ summary }}</td></tr>{% endfor %}
</tbody></table></main></body></html>""")


def install(app: FastAPI) -> None:
    """Serve GET /docs."""

    def docs() -> HTMLResponse:
        schema: dict[str, Any] = app.openapi()
        rows = []
        for path, ops in sorted(schema["paths"].items()):
            for method, op in ops.items():
                permission = ENDPOINT_PERMISSIONS.get((method.upper(), path))
                roles = "anyone" if permission == "public" else ", ".join(sorted(GRANTS[permission])) if permission else "nobody"
                rows.append((method.upper(), path, roles, op.get("description") or op.get("summary", "")))
        return HTMLResponse(_PAGE.render(info=schema["info"], rows=rows))

    app.add_api_route("/docs", docs, methods=["GET"], include_in_schema=False)
