import type { WorkerEvents } from 'graphile-worker';
import type { Logger as Pino } from 'pino';

/** How often the worker says at info what it ran, unless `startWorker` is given another interval. */
export const JOB_SUMMARY_INTERVAL_MS = 60_000;

export interface JobSummary {
  /** Writes what is left uncounted (a worker stopping mid-interval) and ends the timer. */
  stop(): void;
}

/**
 * One info line per interval with the jobs finished in it, per task: `succeeded` counts successes,
 * `failed` counts failed attempts (each also has its own error line). Each job's success is only at
 * debug, so an idle worker whose housekeeping jobs run every second stays quiet at info; an interval
 * in which nothing finished writes nothing.
 */
export function summarizeJobs(
  events: WorkerEvents,
  log: Pino,
  intervalMs = JOB_SUMMARY_INTERVAL_MS,
): JobSummary {
  let succeeded = new Map<string, number>();
  let failed = new Map<string, number>();
  let since = performance.now();
  const onSuccess = ({ job }: { job: { task_identifier: string } }) => bump(succeeded, job.task_identifier);
  const onError = ({ job }: { job: { task_identifier: string } }) => bump(failed, job.task_identifier);
  events.on('job:success', onSuccess);
  events.on('job:error', onError);

  const flush = () => {
    const now = performance.now();
    if (succeeded.size > 0 || failed.size > 0) {
      const fields = { succeeded: Object.fromEntries(succeeded), failed: Object.fromEntries(failed) };
      log.info(fields, `jobs in the last ${seconds(now - since)} s`);
      succeeded = new Map();
      failed = new Map();
    }
    since = now;
  };
  const timer = setInterval(flush, intervalMs);
  // A log line is no reason to keep a process alive that has nothing else to do.
  timer.unref();

  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      events.off('job:success', onSuccess);
      events.off('job:error', onError);
      flush();
    },
  };
}

function bump(counts: Map<string, number>, task: string) {
  counts.set(task, (counts.get(task) ?? 0) + 1);
}

/** Whole seconds, as an operator reads "the last 60 s"; tenths below ten, where rounding would lie. */
function seconds(ms: number): number {
  return ms >= 10_000 ? Math.round(ms / 1000) : Math.round(ms / 100) / 10;
}
