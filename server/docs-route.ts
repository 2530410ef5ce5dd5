import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { marked } from 'marked';
import { ERROR_REFERENCE_PATH } from '../src/error-codes.ts';
import {
  errorReferenceJson,
  isReferencedCode,
  renderErrorEntry,
  renderErrorReference,
} from './error-reference.ts';

/**
 * The API reference at `/docs`: Redoc (the npm package's standalone bundle, served from
 * node_modules: no CDN) rendering the live contract from `/api/v1/openapi.json`, and the changelog
 * at `/docs/changelog` (rendered) and `/docs/changelog.md` (as written).
 */

const BUNDLE_PATH = '/docs/redoc.standalone.js';
const CHANGELOG_URL = new URL('../CHANGELOG.md', import.meta.url);

/**
 * Only this origin. Redoc injects its styles at run time (styled-components: `'unsafe-inline'`
 * styles), starts its search index in a worker made from a `blob:` URL, and draws a few icons as
 * `data:` images; nothing else is allowed, and no script runs inline.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CHANGELOG_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const PAGE_HEADERS = {
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Stockless Partner API reference</title>
<style>
  body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  .top { display: flex; gap: 1.25rem; align-items: center; padding: 0.6rem 1.25rem; background: #1f2937; }
  .top strong { color: #fff; margin-right: auto; }
  .top a { color: #cbd5e1; text-decoration: none; font-size: 0.9rem; }
  .top a:hover { color: #fff; text-decoration: underline; }
</style>
</head>
<body>
<nav class="top" aria-label="Documentation">
  <strong>Stockless Partner API</strong>
  <a href="/docs/errors">Errors</a>
  <a href="/docs/changelog">Changelog</a>
  <a href="/api/v1/openapi.json">openapi.json</a>
</nav>
<redoc spec-url="/api/v1/openapi.json" hide-hostname="true" expand-responses="200,201,202" path-in-middle-panel="true"></redoc>
<script src="${BUNDLE_PATH}"></script>
</body>
</html>
`;

/** The changelog (Keep a Changelog Markdown, our own file) as a page, rendered by marked. */
export function renderChangelog(markdown: string): string {
  const body = marked.parse(markdown, { async: false });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Changelog · Stockless Partner API</title>
<style>
  body { max-width: 52rem; margin: 2rem auto; padding: 0 1.25rem; line-height: 1.55;
    font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2937; }
  code { background: #f1f5f9; padding: 0 0.25em; border-radius: 3px; font-size: 0.9em; }
  h2 { border-bottom: 1px solid #e2e8f0; padding-bottom: 0.3rem; margin-top: 2.2rem; }
  nav a { margin-right: 1rem; }
</style>
</head>
<body>
<nav><a href="/docs">API reference</a><a href="/docs/errors">Error reference</a><a href="/docs/changelog.md">Markdown</a></nav>
${body}
</body>
</html>
`;
}

/**
 * The one address the bundle would fetch by itself: the Redocly logo beside "API docs by Redocly",
 * drawn from their CDN. It becomes an empty `data:` image, which fails to decode, so Redoc drops the
 * logo (its own `onError`) and keeps the text link: the page makes no request off this server.
 */
export const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

export const REDOC_BUNDLE_FILE = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');

/** The bundle as served: node_modules' file with the CDN logo address emptied. */
export async function readRedocBundle(): Promise<Buffer> {
  const text = await readFile(REDOC_BUNDLE_FILE, 'utf8');
  return Buffer.from(text.replaceAll(`"${REDOC_CDN_LOGO}"`, '"data:,"'));
}

let bundle: Promise<Buffer> | undefined;
function redocBundle(): Promise<Buffer> {
  bundle ??= readRedocBundle().catch((err: unknown) => {
    bundle = undefined;
    throw err;
  });
  return bundle;
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, headers = {}) {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/** The error reference's pages: the whole list, one code's entry, and the list as JSON. */
function errorReferencePage(path: string, publicUrl: string): { type: string; body: string } | undefined {
  if (path === ERROR_REFERENCE_PATH) return { type: HTML, body: renderErrorReference(publicUrl) };
  if (path === `${ERROR_REFERENCE_PATH}.json`)
    return { type: 'application/json', body: JSON.stringify(errorReferenceJson(publicUrl)) };
  const code = path.startsWith(`${ERROR_REFERENCE_PATH}/`) ? path.slice(ERROR_REFERENCE_PATH.length + 1) : '';
  return isReferencedCode(code) ? { type: HTML, body: renderErrorEntry(code, publicUrl) } : undefined;
}

const HTML = 'text/html; charset=utf-8';
const KNOWN = ['/docs', '/docs/', BUNDLE_PATH, '/docs/changelog', '/docs/changelog.md'];

/**
 * Serves `/docs`, its script, the changelog and the error reference (`publicUrl`: where its examples
 * say the pages are); answers false for any other path.
 */
export async function serveDocs(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  publicUrl: string,
): Promise<boolean> {
  if (path !== '/docs' && !path.startsWith('/docs/')) return false;
  const reference = errorReferencePage(path, publicUrl);
  if (!reference && !KNOWN.includes(path)) return false;
  if (req.method !== 'GET') {
    send(res, 405, 'text/plain; charset=utf-8', 'Method not allowed\n', { Allow: 'GET, HEAD' });
    return true;
  }
  if (reference) {
    send(res, 200, reference.type, reference.body, {
      ...PAGE_HEADERS,
      'Content-Security-Policy': CHANGELOG_CSP,
    });
    return true;
  }
  switch (path) {
    case '/docs':
    case '/docs/':
      send(res, 200, 'text/html; charset=utf-8', DOCS_PAGE, {
        ...PAGE_HEADERS,
        'Content-Security-Policy': DOCS_CSP,
      });
      return true;
    case BUNDLE_PATH:
      send(res, 200, 'text/javascript; charset=utf-8', await redocBundle(), {
        'Cache-Control': 'public, max-age=86400',
        'Cross-Origin-Resource-Policy': 'same-origin',
      });
      return true;
    case '/docs/changelog':
      send(res, 200, 'text/html; charset=utf-8', renderChangelog(await readFile(CHANGELOG_URL, 'utf8')), {
        ...PAGE_HEADERS,
        'Content-Security-Policy': CHANGELOG_CSP,
      });
      return true;
    default:
      send(res, 200, 'text/markdown; charset=utf-8', await readFile(CHANGELOG_URL, 'utf8'), {
        'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
      });
      return true;
  }
}
