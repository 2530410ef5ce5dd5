import type { IncomingMessage } from 'node:http';
import secureJson from 'secure-json-parse';
import type { ApiErrorCode } from '../src/error-codes.ts';
import { AppError } from '../src/errors.ts';

/**
 * Everything a client sends is read here, once, before any route sees it: the request's query, its
 * body's bytes, their encoding and JSON. Each transport maps a refusal to its own error form (the
 * contract's body on the REST API, RFC 6749's on OAuth), so the same bad input gets the same answer
 * wherever it is sent.
 */
export class InputRefused extends Error {
  readonly status: 400 | 413 | 415;
  readonly code: RefusalCode;
  /** The fields or parameters at fault, each with what is wrong with it. */
  readonly details: { path: string; message: string }[] | undefined;

  constructor(
    status: 400 | 413 | 415,
    code: RefusalCode,
    message: string,
    details?: { path: string; message: string } | { path: string; message: string }[],
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details === undefined ? undefined : [details].flat();
  }
}

type RefusalCode = Extract<
  ApiErrorCode,
  'INVALID_JSON' | 'VALIDATION_FAILED' | 'PAYLOAD_TOO_LARGE' | 'UNSUPPORTED_MEDIA_TYPE'
>;

/** Deeper than any body of ours can be: past this a client is probing, not integrating. */
export const MAX_JSON_DEPTH = 32;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The body's bytes, refused once they pass `maxBytes` (declared or sent). */
export async function readBytes(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = () =>
    new InputRefused(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${maxBytes} bytes`);
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * A body of nothing but JSON whitespace (space, tab, CR, LF) holds no JSON value: it is read as no
 * body at all, as an empty one is (`echo | curl --data-binary @- …` sends a lone newline).
 */
export function isBlank(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return false;
  return true;
}

/** RFC 9110 `type/subtype` (tokens only), the one part of a Content-Type an answer may quote back. */
const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}\/[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

/**
 * What a 415 says about the Content-Type that was sent: its media type when it is one (tokens only,
 * so nothing needs escaping, and short), never the raw header, whose parameters, quotes, control or
 * non-ASCII bytes and length are the client's.
 */
export function unsupportedMediaType(header: string | undefined, expected: string): string {
  const essence = header?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (!essence) return `Send the body as ${expected}`;
  if (!MEDIA_TYPE.test(essence)) return `The Content-Type is not a valid media type; send ${expected}`;
  return `Unsupported media type "${essence}"; send ${expected}`;
}

/** Bytes as UTF-8 text; any invalid sequence is refused, never replaced with U+FFFD. */
export function utf8Text(bytes: Uint8Array, what = 'The request body'): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new InputRefused(400, 'INVALID_JSON', `${what} is not valid UTF-8`);
  }
}

/** Why PostgreSQL could not store this text, or undefined when it can. */
export function unstorable(text: string): string | undefined {
  if (text.includes('\0')) return 'must not contain NUL characters';
  if (!text.isWellFormed()) return 'must not contain unpaired UTF-16 surrogates';
  return undefined;
}

/**
 * A JSON body: syntax, prototype-poisoning keys, depth, and every key and string storable.
 */
export function parseJsonBody(text: string): unknown {
  const value = parseJsonText(text, 'error');
  const refusal = jsonValueRefusal(value);
  if (refusal) throw refusal;
  return value;
}

/**
 * JSON syntax only. `protoAction: 'error'` refuses prototype-poisoning keys as a syntax error;
 * `'ignore'` keeps them as own properties (as `JSON.parse` does, which pollutes nothing) for a caller
 * that screens parts of the value itself with `jsonValueRefusal`.
 */
export function parseJsonText(text: string, protoAction: 'error' | 'ignore'): unknown {
  try {
    return secureJson.parse(text, undefined, { protoAction, constructorAction: protoAction });
  } catch (err) {
    const reason = err instanceof SyntaxError ? err.message : 'it could not be parsed';
    throw new InputRefused(400, 'INVALID_JSON', `The request body is not valid JSON: ${reason}`);
  }
}

/** A key that would reach an object's prototype once the value is copied or merged (secure-json-parse's rule). */
function prototypeKey(key: string, child: unknown): boolean {
  if (key === '__proto__') return true;
  return (
    key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype')
  );
}

/**
 * Why a parsed JSON value cannot be taken, or undefined: a prototype key, nesting past
 * `MAX_JSON_DEPTH`, or a key or string PostgreSQL cannot store. The walk is iterative, so no nesting
 * can exhaust the stack.
 */
export function jsonValueRefusal(value: unknown): InputRefused | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    if (typeof item.value === 'string') {
      const why = unstorable(item.value);
      if (why) return textRefusal(item.path || '(root)', why);
      continue;
    }
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (item.depth >= MAX_JSON_DEPTH) {
      return new InputRefused(
        400,
        'INVALID_JSON',
        `The request body is nested deeper than ${MAX_JSON_DEPTH} levels`,
      );
    }
    for (const [key, child] of Object.entries(item.value)) {
      const path = item.path ? `${item.path}.${key}` : key;
      const why = unstorable(key);
      if (why) return textRefusal(item.path || '(root)', `keys ${why}`);
      if (prototypeKey(key, child)) return textRefusal(path, 'is not an accepted key');
      stack.push({ value: child, path, depth: item.depth + 1 });
    }
  }
  return undefined;
}

/** A field's text refused as any other invalid field is: VALIDATION_FAILED, naming it. */
function textRefusal(path: string, message: string) {
  return new InputRefused(400, 'VALIDATION_FAILED', `Invalid request: ${path}: ${message}`, {
    path,
    message,
  });
}

/**
 * One `application/x-www-form-urlencoded` component (a query or form name or value), decoded as
 * WHATWG does (`+` is a space, a `%` not followed by two hex digits stays as it is) except that
 * the bytes must be UTF-8: `URLSearchParams` would turn a bad sequence into U+FFFD in silence.
 */
function decodeComponent(raw: string, name: string): string {
  const plus = raw.replaceAll('+', ' ');
  if (!plus.includes('%')) return plus;
  const bytes: number[] = [];
  const source = Buffer.from(plus, 'utf8');
  for (let i = 0; i < source.length; i++) {
    const hex = source[i] === 0x25 ? source.subarray(i + 1, i + 3).toString('latin1') : '';
    if (/^[0-9a-f]{2}$/i.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(source[i] as number);
  }
  try {
    return UTF8.decode(Uint8Array.from(bytes));
  } catch {
    throw textRefusal(name, 'is not valid UTF-8 once percent-decoded');
  }
}

export type Params = Record<string, string[]>;

/**
 * A query string or form body as a prototype-free record of each name's values, in order. A
 * parameter named `__proto__` or `constructor` is an ordinary unknown key here, and no value can
 * carry text PostgreSQL cannot store.
 */
export function parseParams(encoded: string): Params {
  const out: Params = Object.create(null);
  for (const part of encoded.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const name = decodeComponent(eq < 0 ? part : part.slice(0, eq), 'a parameter name');
    const value = decodeComponent(eq < 0 ? '' : part.slice(eq + 1), name);
    const why = unstorable(name) ?? unstorable(value);
    if (why) throw textRefusal(name.replaceAll('\0', '\\0'), why);
    const seen = out[name];
    if (seen) seen.push(value);
    else out[name] = [value];
  }
  return out;
}

/** The same, as `URLSearchParams` for code that reads forms that way. */
export function searchParams(encoded: string): URLSearchParams {
  const out = new URLSearchParams();
  for (const [name, values] of Object.entries(parseParams(encoded))) {
    for (const value of values) out.append(name, value);
  }
  return out;
}

/** A refusal in the contract's error form: a 400 is `VALIDATION_FAILED` or `INVALID_JSON` with its field in `details`. */
export function refusalError(err: InputRefused): AppError {
  return new AppError('bad_request', err.code, err.message, {
    status: err.status,
    extra: err.details ? { details: err.details } : {},
    // A refused body may still be arriving: close rather than read the rest.
    headers: err.status === 413 ? { Connection: 'close' } : {},
  });
}
