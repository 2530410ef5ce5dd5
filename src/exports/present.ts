import type { EntityManager } from '@mikro-orm/postgresql';
import { encodeCursor as eventsCursor } from '../events-api/cursor.ts';
import { encodeCursor as inventoryCursor } from '../inventory/cursor.ts';
import type { ExportSettings } from '../settings.ts';
import type { ExportRow } from './queries.ts';
import type { ExportObject } from './schemas.ts';
import { signedUrl } from './signed-url.ts';

const num = (v: string | null) => (v === null ? null : Number(v));

/** The url's end of life, on a whole-minute grid: answers within a minute sign the same url. */
function urlExpiry(settings: ExportSettings, now: number): number {
  return Math.ceil((now + settings.urlTtlMs) / 60_000) * 60;
}

/**
 * An export row as the API answers it. A completed export gets a freshly signed url on every answer
 * (valid for EXPORT_URL_TTL) and its feed positions as the feeds' own sealed cursors.
 */
export async function present(
  em: EntityManager,
  o: { publicUrl: string; settings: ExportSettings; now?: number },
  r: ExportRow,
): Promise<ExportObject> {
  const completed = r.status === 'completed';
  const expires = urlExpiry(o.settings, o.now ?? Date.now());
  const c = r.continuation;
  return {
    id: `exp_${r.id}`,
    object: 'export',
    type: r.type,
    status: r.status,
    filters: r.filters,
    livemode: r.livemode,
    rows_written: Number(r.rows_written),
    row_count: num(r.row_count),
    bytes: num(r.bytes),
    url: completed ? await signedUrl(em, o.publicUrl, r.id, expires) : null,
    url_expires_at: completed ? new Date(expires * 1000).toISOString() : null,
    continuation:
      completed && c
        ? {
            events_cursor: await eventsCursor(em, r.store_id, c.events),
            inventory_cursor: c.inventory ? await inventoryCursor(em, r.store_id, c.inventory) : null,
          }
        : null,
    error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : null,
    created_at: r.created_at,
    started_at: r.started_at,
    completed_at: r.completed_at,
    expires_at: r.expires_at,
  };
}
