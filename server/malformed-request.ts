import type { Socket } from 'node:net';
import type { ApiErrorCode } from '../src/error-codes.ts';
import { wireErrorBody } from '../src/errors.ts';
import { oauthErrorBody } from '../src/oauth/errors.ts';
import { newRequestId } from './request-id.ts';

/** What Node's HTTP parser refused, by its error code; anything else it refuses is a 400. */
interface Refusal {
  status: number;
  reason: string;
  code: ApiErrorCode;
  message: string;
}

const REFUSALS: Record<string, Refusal> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    code: 'HEADERS_TOO_LARGE',
    message: 'The request line and headers are larger than the server accepts',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: 'Request Timeout',
    code: 'REQUEST_TIMEOUT',
    message: 'The request was not received in time',
  },
};

const MALFORMED: Refusal = {
  status: 400,
  reason: 'Bad Request',
  code: 'MALFORMED_REQUEST',
  message: 'The request is not well-formed HTTP',
};

/**
 * The server's `clientError` listener. Node would answer a request its parser refuses with a bare
 * status line; partners get the contract's error body and an `X-Request-Id` here too, then the
 * connection closes (the parser cannot tell where the next request would begin). `publicUrl` is where
 * the error reference page lives, which the body links.
 */
export function malformedRefusal(publicUrl: string) {
  return (err: Error & { code?: string; rawPacket?: Buffer }, socket: RefusedSocket) =>
    refuseMalformed(err, socket, publicUrl);
}

type RefusedSocket = Socket & { _httpMessage?: { headersSent: boolean } | null };

function refuseMalformed(
  err: Error & { code?: string; rawPacket?: Buffer },
  socket: RefusedSocket,
  publicUrl: string,
) {
  // As Node's own listener does: an answer already under way on this connection gets no second one.
  if (err.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const refusal = REFUSALS[err.code ?? ''] ?? MALFORMED;
  const requestId = newRequestId();
  // The OAuth endpoints speak RFC 6749, even here: the request line, when it got through, says where
  // the request was going.
  const line = err.rawPacket?.subarray(0, 256).toString('latin1') ?? '';
  const oauth = /^[A-Z]+ (?:https?:\/\/[^/\s]*)?\/(?:oauth|\.well-known)\//.test(line);
  const body = JSON.stringify(
    oauth
      ? oauthErrorBody('invalid_request', refusal.message, publicUrl)
      : wireErrorBody(
          { error: 'bad_request', code: refusal.code, message: refusal.message },
          { id: requestId, publicUrl },
        ),
  );
  socket.end(
    [
      `HTTP/1.1 ${refusal.status} ${refusal.reason}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      'X-Content-Type-Options: nosniff',
      'Cache-Control: no-store',
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}
