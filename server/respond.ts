import type { ServerResponse } from 'node:http';
import { API_ERROR_CODES, type ApiErrorCode } from '../src/error-codes.ts';
import type { ErrorBody, FieldDetail } from '../src/errors.ts';

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

/** The error each answer the edge wrote itself carried, for the request log (no body is kept). */
const sentErrors = new WeakMap<ServerResponse, Pick<ErrorBody, 'error' | 'code'>>();

/** Notes the category and code of an error answer written outside the procedures (a replay, the edge's own). */
export function noteSentError(res: ServerResponse, body: Pick<ErrorBody, 'error' | 'code'>) {
  sentErrors.set(res, { error: body.error, code: body.code });
}

export function sentErrorOf(res: ServerResponse): Pick<ErrorBody, 'error' | 'code'> | undefined {
  return sentErrors.get(res);
}

export function sendError(res: ServerResponse, status: number, body: ErrorBody, requestId: string) {
  noteSentError(res, body);
  sendJson(res, status, { ...body, request_id: requestId });
}

/**
 * An error the edge answers itself, before or beside the procedures: its status and category are the
 * registry's for `code` (src/error-codes.ts), so they cannot drift from what AppError would answer.
 */
export function sendCode(
  res: ServerResponse,
  code: ApiErrorCode,
  message: string,
  requestId: string,
  details?: FieldDetail[],
) {
  const { status, category } = API_ERROR_CODES[code];
  sendError(res, status, { error: category, code, message, ...(details && { details }) }, requestId);
}
