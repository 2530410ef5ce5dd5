import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../auth/actor.ts';
import { JOBS, keyedJob } from '../db/jobs.ts';
import { rows, sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { DEFAULT_EXPORT_SETTINGS, type ExportSettings } from '../settings.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { authorizeType } from './access.ts';
import { present } from './present.ts';
import { createdSinceQuery, exportQuery, insertQuery, runningQuery } from './queries.ts';
import type { CreateExportInput } from './schemas.ts';

/** Attempts of the job: a failure past them marks the export failed (jobs/export-run.ts). */
export const EXPORT_ATTEMPTS = 3;

export const exportSettingsOf = (ctx: Pick<PartnerContext, 'settings'>): ExportSettings =>
  ctx.settings.exports ?? DEFAULT_EXPORT_SETTINGS;

/** 429 past the day's allowance, with when the oldest export of the window leaves it. */
async function checkDailyLimit(tx: EntityManager, actor: Actor, perDay: number): Promise<void> {
  const [made] = await rows(tx, createdSinceQuery(actor, '24 hours'));
  if (!made || made.n < perDay) return;
  const frees = made.oldest ? Date.parse(made.oldest) + 86_400_000 : Date.now() + 60_000;
  const retryAfter = Math.max(1, Math.ceil((frees - Date.now()) / 1000));
  throw new AppError(
    'rate_limited',
    'EXPORT_DAILY_LIMIT',
    `The store created ${made.n} exports in this mode in the last 24 hours; ${perDay} is the most a day allows`,
    { headers: { 'Retry-After': String(retryAfter) } },
  );
}

/** Queues the export and its job in one transaction, or answers which export is already running. */
async function queue(tx: EntityManager, actor: Actor, input: CreateExportInput): Promise<string> {
  const values = { type: input.type, filters: input.filters ?? {}, canReadCustomers: actor.canReadCustomers };
  // Twice: a running export that ends between the insert and the look-up leaves a free slot.
  for (let attempt = 0; attempt < 2; attempt++) {
    const [row] = await rows(tx, insertQuery(actor, values));
    if (row) {
      const job = keyedJob(JOBS.runExport, {
        key: `${JOBS.runExport}:${row.id}`,
        mode: 'replace',
        payload: { export_id: Number(row.id) },
        maxAttempts: EXPORT_ATTEMPTS,
      });
      await rows(tx, sql`SELECT ${job}`);
      return row.id;
    }
    const [running] = await rows(tx, runningQuery(actor));
    if (running) {
      throw new AppError(
        'conflict',
        'EXPORT_ALREADY_RUNNING',
        `Export exp_${running.id} of this store is still queued or running; one export runs at a time`,
        { extra: { export_id: `exp_${running.id}` } },
      );
    }
  }
  throw new AppError('conflict', 'CONCURRENT_UPDATE', 'Another export was created at the same time; retry');
}

/**
 * POST /api/v1/exports: a queued export of the catalogue (under the list's filters), the store's
 * listings or its orders, answered at once (202); the job `export_run` writes the file.
 */
export async function createExport(ctx: PartnerContext, input: CreateExportInput) {
  const { em, actor } = ctx;
  authorizeType(actor, input.type);
  const settings = exportSettingsOf(ctx);
  const id = await em.transactional(async (tx) => {
    await checkDailyLimit(tx, actor, settings.perDay);
    return queue(tx, actor, input);
  });
  const [row] = await rows(em, exportQuery(actor, id));
  if (!row) throw new Error(`export ${id} vanished after its insert`);
  return { export: await present(em, { publicUrl: ctx.settings.publicUrl, settings }, row) };
}
