import { createServer as createNetServer } from 'node:net';
import type { TestApp } from './app.ts';

/**
 * A response as the tests read it: its status, headers, raw text and parsed JSON (or the text).
 * `T` is the body the test expects (a response type of the SDK, `ErrorBody`, …): the JSON is not
 * checked against it, the test's assertions are.
 */
export interface Sent<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
  /** The raw body (always there for `send`; `app.get` does not keep it). */
  text?: string;
}

/**
 * Whether the response has this status, reading its body as `T` if so: for a race or a table whose
 * answers differ (`isStatus<ErrorBody>(res, 400)`, `isStatus<CreateWholesaleOrderResponse>(res, 201)`).
 */
export function isStatus<T>(res: Sent, status: number): res is Sent<T> {
  return res.status === status;
}

export interface SendOptions {
  /** The bearer credential; none when undefined. */
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One request through the app's real HTTP surface; a body that is not JSON is kept as text. */
export async function send<T = unknown>(
  target: TestApp,
  method: string,
  path: string,
  o: SendOptions = {},
): Promise<Required<Sent<T>>> {
  const res = await target.request(path, { method, key: o.key, body: o.body, headers: o.headers });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, body: body as T, headers: res.headers, text };
}

/** A TestApp's `request` against a server at `baseUrl`: `key` becomes the bearer credential, a body JSON. */
export function requestTo(baseUrl: string): TestApp['request'] {
  return (path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key) headers.authorization = `Bearer ${init.key}`;
    let body: string | undefined;
    if (init.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    }
    return fetch(`${baseUrl}${path}`, { method: init.method ?? 'GET', headers, body });
  };
}

/** A TestApp's `get` over its `request`: GET and parse JSON, asserting nothing. */
export function getVia(request: TestApp['request']): TestApp['get'] {
  return async <T>(path: string, key?: string) => {
    const res = await request(path, { key });
    const text = await res.text();
    const body: T = text ? JSON.parse(text) : undefined;
    return { status: res.status, body, headers: res.headers };
  };
}

/** A port free on 127.0.0.1 just now. */
export async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}
