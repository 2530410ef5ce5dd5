import type { TestApp } from './app.ts';

/** A response as the tests read it: its status, headers, raw text and parsed JSON (or the text). */
// biome-ignore lint/suspicious/noExplicitAny: tests assert on the parsed JSON; its shape is what they check.
export interface Sent<T = any> {
  status: number;
  body: T;
  headers: Headers;
  /** The raw body (always there for `send`; `app.get` does not keep it). */
  text?: string;
}

export interface SendOptions {
  /** The bearer credential; none when undefined. */
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One request through the app's real HTTP surface; a body that is not JSON is kept as text. */
export async function send(
  target: TestApp,
  method: string,
  path: string,
  o: SendOptions = {},
): Promise<Required<Sent>> {
  const res = await target.request(path, { method, key: o.key, body: o.body, headers: o.headers });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, body, headers: res.headers, text };
}
