import { readdirSync, readFileSync } from 'node:fs';

/** CPU time (user + system) of a process so far, in ms, from /proc (Linux; 0 where it cannot be read). */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may hold spaces: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/** Every PostgreSQL process on the machine (the bench's cluster is the only one running). */
function postgresPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') pids.push(Number(entry));
    } catch {}
  }
  return pids;
}

export interface CpuSample {
  postgres: number;
  workers: number;
  bench: number;
}

/** CPU so far of PostgreSQL (all its processes), the given worker processes, and this process. */
export function sampleCpu(workerPids: number[]): CpuSample {
  const usage = process.cpuUsage();
  return {
    postgres: postgresPids().reduce((sum, pid) => sum + cpuMsOf(pid), 0),
    workers: workerPids.reduce((sum, pid) => sum + cpuMsOf(pid), 0),
    bench: (usage.user + usage.system) / 1000,
  };
}

/** CPU ms per unit of work between two samples, by component. */
export function cpuPer(before: CpuSample, after: CpuSample, units: number): CpuSample {
  const per = (k: keyof CpuSample) => Math.round(((after[k] - before[k]) / units) * 1000) / 1000;
  return { postgres: per('postgres'), workers: per('workers'), bench: per('bench') };
}
