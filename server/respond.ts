import type { ServerResponse } from 'node:http';
import type { ErrorBody } from '../src/errors.ts';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  res.statusCode = status;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

export function sendError(res: ServerResponse, status: number, body: ErrorBody, requestId: string) {
  sendJson(res, status, { ...body, request_id: requestId });
}
