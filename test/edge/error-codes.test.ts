import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  API_ERROR_CODES,
  BEARER_CHALLENGE_CODES,
  type ErrorCodeEntry,
  OAUTH_ERROR_CODES,
} from '../../src/error-codes.ts';
import { STATUS_OF } from '../../src/errors.ts';

const ROOT = join(import.meta.dirname, '../..');
const registry: Record<string, ErrorCodeEntry> = {
  ...API_ERROR_CODES,
  ...OAUTH_ERROR_CODES,
  ...BEARER_CHALLENGE_CODES,
};

/** `code:` written for other things than an answer: zod's issue code, tRPC's own error codes. */
const NOT_ANSWERED = new Set(['custom', 'INTERNAL_SERVER_ERROR']);

/** The service's sources: what answers a request (migrations hold no answer). */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true }).flatMap((e) =>
    e.isFile() && e.name.endsWith('.ts') && !e.parentPath.includes('migrations')
      ? [join(e.parentPath, e.name)]
      : [],
  );
}

/**
 * The shapes an error code is written in: a body's or a table's `code`, an AppError or OAuthError, a
 * helper's code argument, a refusal of the input reader, a contract example. The types already
 * refuse a code the registry lacks where they are typed; this catches one written where they are not.
 */
const CODE_SITES = [
  /\bcode:\s*'([A-Za-z_]+)'/g,
  /\bnew AppError\(\s*'[a-z_]+',\s*'([A-Z_]+)'/g,
  /\b(?:notFound|badRequest)\(\s*(?:`[^`]*`|'[^']*'|[^,()]*),\s*'([A-Z_]+)'/g,
  /\bInputRefused\(\s*\d+,\s*'([A-Z_]+)'/g,
  /\berrorExample\(\s*'[a-z_]+',\s*'([A-Z_]+)'/g,
  /\bOAuthError\(\s*'([a-z_]+)'/g,
  /\berror:\s*'([a-z_]+)',\s*(?:error_)?description/g,
];

function codesWritten(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of [...sources('src'), ...sources('server')]) {
    const text = readFileSync(file, 'utf8');
    for (const site of CODE_SITES)
      for (const m of text.matchAll(site)) if (m[1]) found.set(m[1], file.slice(ROOT.length + 1));
  }
  return found;
}

describe('the error code registry', () => {
  it('holds every code the code base writes', () => {
    const written = codesWritten();
    // The scan must see the code base's codes, or it would pass by finding none.
    expect(written.size).toBeGreaterThan(60);
    const missing = [...written]
      .filter(([code]) => !(code in registry) && !NOT_ANSWERED.has(code))
      .map(([c, f]) => `${c} (${f})`);
    expect(missing).toEqual([]);
  });

  it('is thrown with the category and status it documents', () => {
    const wrong: string[] = [];
    for (const file of [...sources('src'), ...sources('server')]) {
      const text = readFileSync(file, 'utf8');
      const where = file.slice(ROOT.length + 1);
      for (const m of text.matchAll(/\b(?:AppError|errorExample)\(\s*'([a-z_]+)',\s*'([A-Z_]+)'/g))
        if (m[2] && registry[m[2]]?.category !== m[1]) wrong.push(`${m[2]} as ${m[1]} (${where})`);
      for (const m of text.matchAll(/\berror: '([a-z_]+)',\s*code: '([A-Z_]+)'/g))
        if (m[2] && registry[m[2]]?.category !== m[1]) wrong.push(`${m[2]} as ${m[1]} (${where})`);
      for (const m of text.matchAll(/\bInputRefused\(\s*(\d+),\s*'([A-Z_]+)'/g))
        if (m[2] && String(registry[m[2]]?.status) !== m[1]) wrong.push(`${m[2]} with ${m[1]} (${where})`);
    }
    expect(wrong).toEqual([]);
  });

  it('documents every code: an error status of its category, what it means and the fix', () => {
    for (const [code, entry] of Object.entries(registry)) {
      expect(entry.status, code).toBeGreaterThanOrEqual(400);
      expect(entry.doc.trim().length, code).toBeGreaterThan(10);
      expect(entry.fix.trim().length, code).toBeGreaterThan(5);
      // A category answers its own status, or one of the same class (413 and 415 are bad requests).
      expect(Math.floor(entry.status / 100), code).toBe(Math.floor(STATUS_OF[entry.category] / 100));
    }
  });

  it('agrees with the contract: each example code under the status and category the registry gives it', () => {
    const doc = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')) as {
      paths: Record<string, Record<string, { responses?: Record<string, ResponseDoc> }>>;
    };
    type ResponseDoc = { content?: Record<string, { examples?: Record<string, { value?: Example }> }> };
    type Example = { error?: string; code?: string };
    const disagreements: string[] = [];
    let seen = 0;
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item))
        for (const [status, response] of Object.entries(op.responses ?? {}))
          for (const media of Object.values(response.content ?? {}))
            for (const example of Object.values(media.examples ?? {})) {
              const { code, error } = example.value ?? {};
              if (!code) continue;
              seen++;
              const entry = registry[code];
              if (!entry || String(entry.status) !== status || entry.category !== error)
                disagreements.push(`${method.toUpperCase()} ${path} ${status}: ${code} (${error})`);
            }
    expect(seen).toBeGreaterThan(50);
    expect(disagreements).toEqual([]);
  });
});
