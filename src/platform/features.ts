import type { EntityManager } from '@mikro-orm/postgresql';
import { PlatformFeature } from '../db/entities/platform.ts';

export const FEATURES = ['inventory_read', 'external_orders'] as const;
export type Feature = (typeof FEATURES)[number];

export async function isFeatureEnabled(em: EntityManager, name: Feature): Promise<boolean> {
  const row = await em.findOne(PlatformFeature, { name });
  return row?.enabled ?? false;
}
