import type { MikroORM } from '@mikro-orm/postgresql';

/** The ORM a process opens once (server/orm.ts) and hands down to the HTTP app and the worker. */
export type Orm = MikroORM;
