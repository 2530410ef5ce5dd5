import type { Task } from 'graphile-worker';
import { JOBS, parseJobPayload } from '../src/db/jobs.ts';
import type { Orm } from '../src/db/orm.ts';
import { LocalFileStore } from '../src/exports/file-store.ts';
import { failStalledExports, pruneExports } from '../src/exports/prune-exports.ts';
import { failExport, runExport } from '../src/exports/run-export.ts';
import type { ExportSettings } from '../src/settings.ts';

/**
 * `export_run`: writes one export's file (src/exports/run-export.ts). A failure is retried while the
 * job has attempts left; the last one marks the export failed with its `export.failed` event.
 */
export function exportRunTask(orm: Orm, settings: ExportSettings): Task {
  const files = new LocalFileStore(settings.dir);
  return async (payload, helpers) => {
    const { export_id } = parseJobPayload(JOBS.runExport, payload);
    const deps = { em: () => orm.em.fork(), settings, files };
    try {
      const outcome = await runExport(deps, String(export_id));
      helpers.logger.info(`export exp_${export_id} ${outcome}`);
    } catch (err) {
      if (helpers.job.attempts < helpers.job.max_attempts) throw err;
      helpers.logger.error(`export exp_${export_id} failed on its last attempt: ${String(err)}`);
      await failExport(deps, String(export_id));
    }
  };
}

/**
 * `export_prune` (cron, hourly): exports past their retention lose their file and become expired, and
 * exports whose job died for good are failed, so the store can start another.
 */
export function exportPruneTask(orm: Orm, settings: ExportSettings): Task {
  const files = new LocalFileStore(settings.dir);
  return async (payload, helpers) => {
    parseJobPayload(JOBS.pruneExports, payload);
    const n = await pruneExports(() => orm.em.fork(), files);
    if (n > 0) helpers.logger.info(`expired ${n} exports`);
    const stalled = await failStalledExports(() => orm.em.fork(), files);
    if (stalled > 0) helpers.logger.warn(`failed ${stalled} stalled exports`);
  };
}
