import { Store } from '../db/entities/store.ts';
import { AppError, field } from '../errors.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import type { CreateStoreInput } from './schemas.ts';
import { slugify } from './slug.ts';

/**
 * Creates a store. Only the EntityManager is needed: the demo seed, the tests and the benchmarks
 * create stores before any request settings exist.
 */
export async function createStore(ctx: Pick<UseCaseContext, 'em'>, input: CreateStoreInput) {
  const slug = input.slug ?? slugify(input.name);
  return ctx.em.transactional(async (tx) => {
    if (await tx.count(Store, { slug })) {
      throw new AppError('conflict', 'SLUG_TAKEN', `A store with slug ${slug} already exists`, {
        details: field(input.slug === undefined ? 'name' : 'slug', `the slug ${slug} is taken`),
      });
    }
    const store = tx.create(Store, {
      name: input.name,
      slug,
      ownerEmail: input.ownerEmail ?? null,
      catalogueScope: input.catalogueScope ?? 'all',
    });
    await tx.flush();
    return { id: store.id, name: store.name, slug: store.slug, created_at: store.createdAt.toISOString() };
  });
}
