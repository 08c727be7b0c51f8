// The two HTML documents the server writes itself: the landing page and the dashboard's shell. Neither
// carries data from the API; the shell only says which environment it runs in (for the dev wallet).
import type { SvcEnv } from '../../config.js';

const escapeAttr = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function dashboardShell(env: SvcEnv): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="svc-env" content="${escapeAttr(env)}">
<title>Svc dashboard</title>
<link rel="stylesheet" href="/dashboard/assets/style.css">
<script type="module" src="/dashboard/assets/app.js"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<div id="app"><p class="state" role="status">Loading the dashboard…</p></div>
<noscript><p>The dashboard needs JavaScript. Everything it does is also available through the HTTP API.</p></noscript>
</body>
</html>`;
}

export function landingPage(env: SvcEnv): string {
  const devnet =
    env === 'devnet'
      ? '<p class="note">This server runs in <strong>devnet</strong>: a local chain with test USDC. Sign in with the dev wallet to try deposits without a browser extension.</p>'
      : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Svc: paid APIs for AI agents</title>
<link rel="stylesheet" href="/dashboard/assets/style.css">
</head>
<body class="landing">
<main id="main">
<h1>Svc</h1>
<p class="lead">A marketplace of paid API endpoints for AI agents. Providers list capabilities; agents discover
them and pay per call from a prepaid credit balance (1 credit = 0.000001 USDC), funded by card or by a USDC
deposit.</p>
${devnet}
<ul class="links">
<li><a href="/dashboard">Open the dashboard</a>: balance, keys, top-ups, deposits, limits, usage, catalogue.</li>
${env === 'production' ? '' : '<li><a href="/docs">API reference</a> (OpenAPI).</li>'}
<li>MCP endpoint for agents: <code>/mcp</code> (Streamable HTTP).</li>
</ul>
</main>
</body>
</html>`;
}
