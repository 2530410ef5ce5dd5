import { db } from '../db/kysely.ts';
import { first, isoTime, run } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import type { ListApiKeysInput } from './schemas.ts';

/**
 * A store's API keys, revoked ones too, for operators (the CLI's `keys:list`). Only the display
 * prefix (`sl_live_abcd`) is shown: the key itself is never stored, and its hash is never read back.
 */
export async function listApiKeys(ctx: Pick<UseCaseContext, 'em'>, { storeId }: ListApiKeysInput) {
  const store = await first(db(ctx.em).selectFrom('stores').select('id').where('id', '=', storeId));
  if (!store) throw notFound(`No store with id ${storeId}`, 'STORE_NOT_FOUND');
  const keys = await run(
    db(ctx.em)
      .selectFrom('api_keys')
      .select((eb) => [
        'id',
        'name',
        eb.ref('token_prefix').as('prefix'),
        'scope',
        'mode',
        isoTime(eb.ref('created_at')).as('created_at'),
        isoTime(eb.ref('last_used_at')).$castTo<string | null>().as('last_used_at'),
        isoTime(eb.ref('revoked_at')).$castTo<string | null>().as('revoked_at'),
      ])
      .where('store_id', '=', storeId)
      .orderBy('id'),
  );
  return { store_id: storeId, keys };
}
