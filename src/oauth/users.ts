import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/kysely.ts';
import { first } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';
import { hashPassword, verifyPassword } from './passwords.ts';

/** A dashboard user of a store: who signs in on the consent page. */
export async function createUser(
  em: EntityManager,
  input: { storeId: number; email: string; password: string },
) {
  const store = await first(db(em).selectFrom('stores').select('id').where('id', '=', input.storeId));
  if (!store) throw notFound(`No store with id ${input.storeId}`, 'STORE_NOT_FOUND');
  const email = input.email.trim().toLowerCase();
  const hash = await hashPassword(input.password);
  const user = await first(
    db(em)
      .insertInto('dashboard_users')
      .values({ store_id: input.storeId, email, password_hash: hash })
      .onConflict((oc) => oc.column('email').doNothing())
      .returning('id'),
  );
  if (!user) throw new AppError('conflict', 'USER_EXISTS', `A user with the email ${email} exists`);
  return { id: user.id, store_id: input.storeId, email };
}

/** The user, or undefined for a wrong email or password alike (same work either way). */
export async function signIn(em: EntityManager, email: string, password: string) {
  const user = await first(
    db(em)
      .selectFrom('dashboard_users')
      .select(['id', 'store_id', 'password_hash'])
      .where('email', '=', email.trim().toLowerCase()),
  );
  const ok = await verifyPassword(password, user?.password_hash);
  return ok && user ? { id: user.id, storeId: user.store_id } : undefined;
}
