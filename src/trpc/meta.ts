import type { AnyRouter } from '@trpc/server';
import type { Meta } from './init.ts';

/** Every procedure's meta by its dotted path (`listings.add`), read from a built router. */
export function proceduresMeta(router: AnyRouter): Map<string, Meta> {
  const procedures = router._def.procedures as unknown as Record<string, { _def: { meta?: Meta } }>;
  return new Map(Object.entries(procedures).map(([path, p]) => [path, p._def.meta ?? {}]));
}
