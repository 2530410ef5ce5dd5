import type { IncomingMessage, ServerResponse } from 'node:http';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import { wwwAuthenticate } from '../src/auth/credentials.ts';
import { appRouter } from '../src/router.ts';
import type { Context } from '../src/trpc/context.ts';
import { type ErrorBody, shapeError } from '../src/trpc/errors.ts';
import { proceduresMeta } from '../src/trpc/meta.ts';
import type { Logger } from './logger.ts';
import { sendError } from './respond.ts';

const MAX_BODY_BYTES = 1_000_000;

export interface RestDeps {
  createContext(req: IncomingMessage): Context;
  publicUrl: string;
  log: Logger;
}

/**
 * trpc-to-openapi writes its own error body: it overwrites `code` with the tRPC code and the message
 * of validation failures with a generic one. The contract's body was already computed by the
 * errorFormatter (under `data.contract`); this puts it on the wire in place of the adapter's.
 */
function contractErrorBody(adapterBody: string, requestId: string): string {
  let body: ErrorBody | undefined;
  try {
    body = JSON.parse(adapterBody)?.data?.contract;
  } catch {
    body = undefined;
  }
  body ??= { error: 'server_error', message: 'Internal server error' };
  return JSON.stringify({ ...body, request_id: requestId });
}

const metaByPath = proceduresMeta(appRouter);

/** A procedure's declared success status (201 for creates), from its meta. */
function successStatus(path: string | undefined): number {
  return (path && metaByPath.get(path)?.successStatus) || 200;
}

export function createRestHandler(deps: RestDeps) {
  const handler = createOpenApiNodeHttpHandler({
    router: appRouter,
    maxBodySize: MAX_BODY_BYTES,
    createContext: ({ req }) => deps.createContext(req as IncomingMessage),
    responseMeta: ({ errors, paths, ctx }) => {
      const error = errors[0];
      if (!error)
        return {
          status: ctx?.response?.status ?? successStatus(paths?.[0]),
          headers: ctx?.response?.headers ?? {},
        };
      const shaped = shapeError(error);
      const headers: Record<string, string> = { ...ctx?.response?.headers, ...shaped.headers };
      if (shaped.status === 401) {
        headers['WWW-Authenticate'] = wwwAuthenticate(deps.publicUrl);
      }
      return { status: shaped.status, headers };
    },
    onError: ({ error, path }) => {
      if (shapeError(error).status >= 500)
        deps.log.error({ err: error.cause ?? error, path }, 'procedure failed');
    },
  });

  return async (req: IncomingMessage, res: ServerResponse, requestId: string) => {
    // The adapter admits any `application/json…` media type but parses the body only when the header
    // is exactly `application/json`: normalise a UTF-8 charset parameter away, and refuse others.
    const type = req.headers['content-type'];
    if (type && /^application\/json\s*;/i.test(type)) {
      const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type)?.[1]?.toLowerCase();
      if (charset && charset !== 'utf-8' && charset !== 'utf8') {
        return sendError(
          res,
          415,
          { error: 'bad_request', code: 'UNSUPPORTED_MEDIA_TYPE', message: 'JSON bodies must be UTF-8' },
          requestId,
        );
      }
      req.headers['content-type'] = 'application/json';
    }
    // An action with nothing to send (`curl -X POST …/rotate-secret`) has no body and no media type:
    // treat it as an empty JSON body instead of refusing a body that does not exist.
    const bodiless =
      !type && !req.headers['transfer-encoding'] && (req.headers['content-length'] ?? '0') === '0';
    if (bodiless && req.method !== 'GET' && req.method !== 'HEAD')
      req.headers['content-type'] = 'application/json';
    const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
    res.end = ((chunk?: unknown) => {
      let out = chunk;
      if (res.statusCode >= 400 && typeof out === 'string') out = contractErrorBody(out, requestId);
      if (typeof out === 'string') res.setHeader('Content-Length', Buffer.byteLength(out));
      return end(out);
    }) as ServerResponse['end'];
    await handler(req, res);
  };
}
