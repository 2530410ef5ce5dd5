import { marked } from 'marked';
import {
  ERROR_REFERENCE,
  ERROR_REFERENCE_PATH,
  ERROR_REFERENCE_SECTIONS,
  type ErrorCodeEntry,
  type ErrorForm,
  errorDocUrl,
  type ReferencedCode,
} from '../src/error-codes.ts';
import { EXAMPLE_REQUEST_ID } from '../src/trpc/operation-docs.ts';

/**
 * The error reference page (`/docs/errors`) and one page per code (`/docs/errors/<code>`, what
 * `doc_url` and `error_uri` link), written from src/error-codes.ts alone: a code has its entry the
 * moment it is in the registry, and a code cannot be in the registry without its meaning, fix and
 * example (the entry's type asks for them).
 */

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The registry's prose is Markdown (`code` spans); inline only, and escaped by marked. */
const inline = (text: string) => marked.parseInline(escapeHtml(text), { async: false });

export function isReferencedCode(code: string): code is ReferencedCode {
  return Object.hasOwn(ERROR_REFERENCE, code);
}

function formOf(code: ReferencedCode): ErrorForm {
  return ERROR_REFERENCE_SECTIONS.find((s) => Object.hasOwn(s.codes, code))?.form ?? 'api';
}

/** What a partner meets with this code, written as the service writes it. */
export function exampleOf(code: ReferencedCode, publicUrl: string): string {
  const { status, category, example } = ERROR_REFERENCE[code];
  const docUrl = errorDocUrl(publicUrl, code);
  switch (formOf(code)) {
    case 'oauth':
      return `HTTP ${status}\n${JSON.stringify({ error: code, error_description: example, error_uri: docUrl }, null, 2)}`;
    case 'bearer':
      return `HTTP ${status}\nWWW-Authenticate: Bearer error="${code}", error_description="${example}", error_uri="${docUrl}"`;
    default: {
      const body = {
        error: category,
        code,
        message: example,
        doc_url: docUrl,
        request_id: EXAMPLE_REQUEST_ID,
      };
      return `HTTP ${status}\n${JSON.stringify(body, null, 2)}`;
    }
  }
}

function entryHtml(code: ReferencedCode, entry: ErrorCodeEntry, publicUrl: string): string {
  return `<section id="${code}">
<h3><a href="${ERROR_REFERENCE_PATH}/${code}">${code}</a></h3>
<p class="meta">HTTP ${entry.status} · <code>${entry.category}</code></p>
<dl>
<dt>What it means</dt><dd>${inline(entry.doc)}</dd>
<dt>The fix</dt><dd>${inline(entry.fix)}</dd>
<dt>Example</dt><dd><pre>${escapeHtml(exampleOf(code, publicUrl))}</pre></dd>
</dl>
</section>`;
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Stockless Partner API</title>
<style>
  body { max-width: 52rem; margin: 2rem auto; padding: 0 1.25rem; line-height: 1.55;
    font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2937; }
  code, pre { background: #f1f5f9; border-radius: 3px; font-size: 0.9em; }
  code { padding: 0 0.25em; }
  pre { padding: 0.6rem 0.8rem; overflow-x: auto; }
  h2 { border-bottom: 1px solid #e2e8f0; padding-bottom: 0.3rem; margin-top: 2.2rem; }
  h3 a { color: inherit; }
  .meta { color: #475569; margin-top: -0.6rem; }
  dt { font-weight: 600; }
  nav a { margin-right: 1rem; }
</style>
</head>
<body>
<nav><a href="/docs">API reference</a><a href="${ERROR_REFERENCE_PATH}">Error reference</a><a href="/docs/changelog">Changelog</a></nav>
${body}
</body>
</html>
`;
}

const INTRO = `<h1>Error reference</h1>
<p>Every error the API answers carries a stable <code>code</code>, and its body links the code's entry
here as <code>doc_url</code> (the OAuth endpoints as <code>error_uri</code>, RFC 6749 §5.2). Branch on
<code>code</code>, never on <code>message</code>: messages may be reworded, codes are part of the
contract. <code>details</code> names each field at fault; quote <code>request_id</code> to support.
The same list is served as JSON at <a href="${ERROR_REFERENCE_PATH}.json">${ERROR_REFERENCE_PATH}.json</a>.</p>`;

/** The whole reference: every section, every code. */
export function renderErrorReference(publicUrl: string): string {
  const sections = ERROR_REFERENCE_SECTIONS.map(({ title, codes }) => {
    const entries = Object.entries(codes).map(([code, entry]) =>
      entryHtml(code as ReferencedCode, entry, publicUrl),
    );
    return `<h2>${escapeHtml(title)}</h2>\n${entries.join('\n')}`;
  });
  return page('Error reference', `${INTRO}\n${sections.join('\n')}`);
}

/** One code's entry, as its own page. */
export function renderErrorEntry(code: ReferencedCode, publicUrl: string): string {
  return page(code, entryHtml(code, ERROR_REFERENCE[code], publicUrl));
}

/** The reference as data, for tools that map codes to help. */
export function errorReferenceJson(publicUrl: string) {
  return {
    object: 'list',
    data: ERROR_REFERENCE_SECTIONS.flatMap(({ title, form, codes }) =>
      Object.entries(codes).map(([code, e]) => ({
        code,
        form,
        section: title,
        status: e.status,
        category: e.category,
        meaning: e.doc,
        fix: e.fix,
        example_message: e.example,
        doc_url: errorDocUrl(publicUrl, code as ReferencedCode),
      })),
    ),
  };
}
