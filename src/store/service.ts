import type { EntityManager } from '@mikro-orm/postgresql';
import { Store } from '../db/entities/store.ts';
import { AppError } from '../errors.ts';

export function slugify(value: string): string {
  return (
    value
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'store'
  );
}

export interface CreateStoreInput {
  name: string;
  slug?: string;
  ownerEmail?: string;
  catalogueScope?: 'all' | 'store';
}

export async function createStore(em: EntityManager, input: CreateStoreInput) {
  const slug = input.slug ?? slugify(input.name);
  return em.transactional(async (tx) => {
    if (await tx.count(Store, { slug })) {
      throw new AppError('conflict', 'SLUG_TAKEN', `A store with slug ${slug} already exists`);
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
