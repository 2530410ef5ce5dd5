import type { ServerResponse } from 'node:http';
import { API_ERROR_CODES, type ApiErrorCode } from '../src/error-codes.ts';
import { type ErrorBody, type ErrorOrigin, type FieldDetail, wireErrorBody } from '../src/errors.ts';

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

/** Writes an error answer, and notes it on its origin (a request's state: the request log reads its code). */
export function sendError(res: ServerResponse, status: number, body: ErrorBody, origin: ErrorOrigin) {
  origin.error ??= { status, body, headers: {} };
  sendJson(res, status, wireErrorBody(body, origin));
}

/**
 * An error the edge answers itself, before or beside the procedures: its status and category are the
 * registry's for `code` (src/error-codes.ts), so they cannot drift from what AppError would answer.
 */
export function sendCode(
  res: ServerResponse,
  code: ApiErrorCode,
  message: string,
  origin: ErrorOrigin,
  details?: FieldDetail[],
) {
  const { status, category } = API_ERROR_CODES[code];
  sendError(res, status, { error: category, code, message, ...(details && { details }) }, origin);
}
