import type { ServerResponse } from 'node:http';

const SCOPE_TEXT: Record<string, string> = {
  read_products: 'Read the catalogue and your listings',
  write_products: 'Add, remove and price your listings',
  read_inventory: 'Read the stock you can sell',
  write_inventory: 'Update inventory',
  read_orders: 'Read your orders',
  write_orders: 'Update your orders',
  read_customers: 'See buyer names, emails and addresses',
  write_external_orders: 'Post and cancel marketplace orders',
  manage_webhooks: 'Create, change and delete your webhook subscriptions (and see their signing secrets)',
};

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The page may not be framed (clickjacking) and runs no script at all; forms post back to this
 * origin only. `form-action` is left out on purpose: approving redirects to the app.
 */
export function sendPage(
  res: ServerResponse,
  status: number,
  title: string,
  body: string,
  headers: Record<string, string | string[]> = {},
) {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} · Stockless</title>
<style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.4rem}label{display:block;margin:.8rem 0 .2rem}input[type=email],input[type=password]{width:100%;padding:.5rem;box-sizing:border-box}
button{margin:1rem .5rem 0 0;padding:.6rem 1.2rem;font-size:1rem}ul{padding-left:1.2rem}.error{color:#b00020}.muted{color:#666;font-size:.9rem}</style>
</head><body>${body}</body></html>`;
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(html),
    'Cache-Control': 'no-store',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy':
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    // Not no-referrer: under it Chromium sends `Origin: null` even for this page's own forms.
    'Referrer-Policy': 'same-origin',
    ...headers,
  });
  res.end(html);
}

export function signInForm(o: {
  requestId: string;
  csrf: string;
  clientName: string;
  error?: string;
  email?: string;
}) {
  return `<h1>Sign in to connect ${escapeHtml(o.clientName)}</h1>
${o.error ? `<p class="error" role="alert">${escapeHtml(o.error)}</p>` : ''}
<form method="post" action="/oauth/consent">
<input type="hidden" name="request" value="${escapeHtml(o.requestId)}">
<input type="hidden" name="csrf" value="${escapeHtml(o.csrf)}">
<input type="hidden" name="action" value="sign_in">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(o.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`;
}

export function consentForm(o: {
  requestId: string;
  csrf: string;
  clientName: string;
  storeName: string;
  email: string;
  scopes: string[];
  /** The token is for the vendor MCP endpoint: the app is an AI assistant acting as the store. */
  assistant?: boolean;
}) {
  const items = o.scopes
    .map((s) => `<li><strong>${escapeHtml(s)}</strong>: ${escapeHtml(SCOPE_TEXT[s] ?? s)}</li>`)
    .join('');
  return `<h1>${escapeHtml(o.clientName)} wants access to ${escapeHtml(o.storeName)}</h1>
${o.assistant ? '<p>It connects an AI assistant to your store through the Stockless MCP endpoint.</p>\n' : ''}<p>It asks to:</p><ul>${items}</ul>
<form method="post" action="/oauth/consent">
<input type="hidden" name="request" value="${escapeHtml(o.requestId)}">
<input type="hidden" name="csrf" value="${escapeHtml(o.csrf)}">
<button type="submit" name="action" value="approve">Approve</button>
<button type="submit" name="action" value="deny">Deny</button>
</form>
<p class="muted">Signed in as ${escapeHtml(o.email)}. You can uninstall the app at any time.</p>`;
}

export function errorPage(title: string, message: string) {
  return `<h1>${escapeHtml(title)}</h1><p class="error">${escapeHtml(message)}</p>`;
}
