import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../src/errors.ts';
import type { ExportFileStore } from '../src/exports/file-store.ts';
import { openExportFile } from '../src/exports/open-file.ts';
import { shapeError } from '../src/trpc/errors.ts';
import type { RequestState } from '../src/trpc/request-state.ts';
import { sendError } from './respond.ts';

export const EXPORT_FILE_PATH = /^\/api\/v1\/exports\/([^/]+)\/file$/;

/**
 * `GET /api/v1/exports/{id}/file?expires=…&signature=…`: an export's gzip file, streamed. A raw
 * route (trpc-to-openapi speaks JSON only) that takes no API key: the url's signature is the
 * credential, so `curl -o` can fetch it. `application/gzip` with the file's own length: the bytes are
 * the file (docs/decisions.md, "Bulk export: the download").
 */
export async function serveExportFile(
  req: IncomingMessage,
  res: ServerResponse,
  deps: {
    em: EntityManager;
    files: ExportFileStore;
    state: RequestState;
    rawId: string;
    query: URLSearchParams;
  },
) {
  try {
    if (req.method !== 'GET') {
      throw new AppError('method_not_allowed', 'METHOD_NOT_ALLOWED', 'Use GET', {
        headers: { Allow: 'GET, HEAD' },
      });
    }
    const file = await openExportFile(deps.em, deps.files, {
      id: deps.rawId,
      expires: deps.query.get('expires'),
      signature: deps.query.get('signature'),
    });
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/gzip');
    res.setHeader('Content-Length', file.size);
    res.setHeader('Content-Disposition', `attachment; filename="${file.filename}"`);
    res.setHeader('Cache-Control', 'private, no-store');
    if (deps.state.sentMethod === 'HEAD') {
      file.stream.destroy();
      res.end();
      return;
    }
    await pipeline(file.stream, res);
  } catch (err) {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const shaped = shapeError(err);
    if (shaped.status >= 500) throw err;
    for (const [k, v] of Object.entries(shaped.headers)) res.setHeader(k, v);
    sendError(res, shaped.status, shaped.body, deps.state);
  }
}
