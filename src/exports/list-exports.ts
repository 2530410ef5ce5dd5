import type { EntityManager } from '@mikro-orm/postgresql';
import { openCursor, sealCursor } from '../db/sealed-cursor.ts';
import { rows } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { mayReadRow, readableTypes } from './access.ts';
import { exportSettingsOf } from './create-export.ts';
import { present } from './present.ts';
import { pageQuery } from './queries.ts';
import type { ListExportsInput } from './schemas.ts';

const DEFAULT_LIMIT = 20;

/** A page's end: the last export's row id, sealed with the store and mode it belongs to. */
const seal = (em: EntityManager, storeId: number, livemode: boolean, id: string) =>
  sealCursor(em, `exp1:${storeId}:${livemode ? 1 : 0}:${id}`);

async function openPage(em: EntityManager, storeId: number, livemode: boolean, cursor: string) {
  const m = /^exp1:(\d+):([01]):(\d{1,19})$/.exec((await openCursor(em, cursor)) ?? '');
  if (!m || Number(m[1]) !== storeId || (m[2] === '1') !== livemode) {
    throw new AppError('bad_request', 'INVALID_CURSOR', 'cursor is not a next_cursor this list gave', {
      extra: { details: [{ path: 'cursor', message: 'not a next_cursor of this list' }] },
    });
  }
  return m[3] as string;
}

/** The store's exports in the credential's mode, newest first; an app sees the types its scopes read. */
export async function listExports(ctx: PartnerContext, input: ListExportsInput) {
  const { em, actor } = ctx;
  const limit = input.limit ?? DEFAULT_LIMIT;
  const before = input.cursor ? await openPage(em, actor.storeId, actor.livemode, input.cursor) : null;
  const types = readableTypes(actor);
  const page = types.length ? await rows(em, pageQuery(actor, { types, before, limit: limit + 1 })) : [];
  const onPage = page.slice(0, limit);
  // An export with buyer details this credential may not read is left out, as GET answers it 403.
  const shown = onPage.filter((r) => mayReadRow(actor, r));
  const opts = { publicUrl: ctx.settings.publicUrl, settings: exportSettingsOf(ctx) };
  const last = onPage.at(-1);
  const hasMore = page.length > limit;
  return {
    exports: await Promise.all(shown.map((r) => present(em, opts, r))),
    next_cursor: hasMore && last ? await seal(em, actor.storeId, actor.livemode, last.id) : null,
    has_more: hasMore,
  };
}
