import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OAuthErrorCode } from '../../src/error-codes.ts';
import { OAuthError, oauthErrorBody } from '../../src/oauth/errors.ts';
import { InputRefused, parseJsonBody, readBytes, searchParams, utf8Text } from '../http-input.ts';

const MAX_BODY = 64 * 1024;

/** A refusal of the shared input reader in RFC 6749's form (`error` named by the endpoint). */
function inOAuthForm(err: unknown, error: OAuthErrorCode): unknown {
  return err instanceof InputRefused ? new OAuthError(error, err.message, err.status) : err;
}

/** Runs a step of the shared input reader, answering its refusals in RFC 6749's form. */
export function asOAuth<T>(read: () => T, error: OAuthErrorCode = 'invalid_request'): T {
  try {
    return read();
  } catch (err) {
    throw inOAuthForm(err, error);
  }
}

async function readText(req: IncomingMessage, error: OAuthErrorCode): Promise<string> {
  const bytes = await readBytes(req, MAX_BODY).catch((err: unknown) => {
    throw inOAuthForm(err, error);
  });
  return asOAuth(() => utf8Text(bytes), error);
}

/** A JSON body (client registration), read as strictly as the REST API's. */
export async function readJson(req: IncomingMessage, error: OAuthErrorCode): Promise<unknown> {
  const text = await readText(req, error);
  return asOAuth(() => parseJsonBody(text), error);
}

/** A form-encoded body (token, revoke, consent): anything else is refused. */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded', 415);
  }
  const text = await readText(req, 'invalid_request');
  return asOAuth(() => searchParams(text));
}

export function sendOAuthJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    ...headers,
  });
  res.end(text);
}

export function sendOAuthError(
  res: ServerResponse,
  err: OAuthError,
  publicUrl: string,
  headers: Record<string, string> = {},
) {
  sendOAuthJson(res, err.status, oauthErrorBody(err.error, err.description, publicUrl), headers);
}

export function cookies(req: IncomingMessage): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    // A malformed escape is a cookie we did not set: ignore it rather than fail the request.
    try {
      out.set(part.slice(0, i).trim(), decodeURIComponent(part.slice(i + 1).trim()));
    } catch {}
  }
  return out;
}

export function clientIp(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}
