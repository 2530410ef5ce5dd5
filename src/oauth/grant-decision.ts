import type { EntityManager } from '@mikro-orm/postgresql';
import { hashToken, randomToken } from '../auth/secret-tokens.ts';
import { db } from '../db/kysely.ts';
import { first, run, sql } from '../db/sql.ts';
import { type PendingRequest, redirectWith } from './authorization-request.ts';
import type { Session } from './sessions.ts';

const CODE_TTL_SECONDS = 300;

/**
 * The user approved: the store's one grant for this app takes exactly the scopes asked now (so a
 * reinstall with fewer narrows it), and a single-use code goes back to the app.
 */
export async function approve(em: EntityManager, request: PendingRequest, session: Session, issuer: string) {
  const code = randomToken('');
  await em.transactional(async (tx) => {
    const grant = await first(
      db(tx)
        .insertInto('oauth_grants')
        .values({ store_id: session.storeId, client_id: request.client_id, scopes: request.scopes })
        .onConflict((oc) =>
          oc.columns(['store_id', 'client_id']).doUpdateSet((eb) => ({
            scopes: eb.ref('excluded.scopes'),
            revoked_at: null,
            updated_at: sql`now()`,
          })),
        )
        .returning('id'),
    );
    if (!grant) throw new Error('the grant was not upserted');
    await run(
      db(tx)
        .insertInto('oauth_codes')
        .values({
          code_hash: hashToken(code),
          grant_id: grant.id,
          client_id: request.client_id,
          redirect_uri: request.redirect_uri,
          code_challenge: request.code_challenge,
          resource: request.resource,
          scopes: request.scopes,
          expires_at: sql`now() + ${CODE_TTL_SECONDS} * interval '1 second'`,
        }),
    );
    await run(db(tx).deleteFrom('oauth_requests').where('id', '=', request.id));
  });
  return redirectWith(request.redirect_uri, { code, state: request.state ?? undefined, iss: issuer });
}

export async function deny(em: EntityManager, request: PendingRequest, issuer: string) {
  await run(db(em).deleteFrom('oauth_requests').where('id', '=', request.id));
  return redirectWith(request.redirect_uri, {
    error: 'access_denied',
    error_description: 'The store did not approve the request',
    state: request.state ?? undefined,
    iss: issuer,
  });
}
