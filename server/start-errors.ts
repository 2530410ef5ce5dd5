import type { Config } from './config.ts';

/** What Node and pg put on a failed system call or connection. */
interface SystemError {
  code?: string;
  syscall?: string;
  path?: string;
  address?: string;
  port?: number;
  message?: string;
}

const DATA_DIR_CODES = new Set(['EACCES', 'EPERM', 'ENOTDIR', 'EEXIST', 'EROFS', 'ENOSPC', 'ELOOP']);
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** PostgreSQL's SQLSTATEs for a refused login and a missing database. */
const PG_LOGIN_REFUSED = new Set(['28P01', '28000']);
const PG_NO_DATABASE = '3D000';

/**
 * A failure to start that the operator fixes with a setting, as one line naming that setting; or
 * undefined for anything else (a bug, which keeps its stack). `npm start` is often someone's first
 * command here, and a Node stack trace for a busy port tells them nothing.
 */
export function explainStartError(err: unknown, config: Config): string | undefined {
  const e = (err ?? {}) as SystemError;
  if (e.syscall === 'listen') return listenProblem(e, config);
  if (config.DATABASE_URL) return databaseProblem(e, config.DATABASE_URL);
  if (e.code && DATA_DIR_CODES.has(e.code) && e.path) {
    return (
      `DATA_DIR "${config.DATA_DIR}" cannot hold the embedded database (${e.code} at ${e.path}): ` +
      'set DATA_DIR to a folder this user can create and write, or set DATABASE_URL.'
    );
  }
  return undefined;
}

function listenProblem(e: SystemError, config: Config): string | undefined {
  const port = e.port ?? config.PORT;
  if (e.code === 'EADDRINUSE') {
    return (
      `Port ${port} is already in use (another "npm start"?): stop that process, or set PORT to a free ` +
      `port, e.g. PORT=${port + 1} npm start.`
    );
  }
  if (e.code === 'EACCES')
    return `Port ${port} needs privileges this user does not have: set PORT to 1024 or above.`;
  if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND') {
    return `HOST "${config.HOST}" is not an address of this machine: set HOST to one (0.0.0.0 for all).`;
  }
  return undefined;
}

/** Where DATABASE_URL points, without its password. */
function target(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || 5432}${u.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
}

function databaseProblem(e: SystemError, url: string): string | undefined {
  const where = target(url);
  if (e.code && UNREACHABLE.has(e.code)) {
    return (
      `Cannot reach the database at ${where} (${e.code}): check DATABASE_URL and that PostgreSQL is ` +
      'running, or unset DATABASE_URL to use the embedded PostgreSQL.'
    );
  }
  if (e.code && PG_LOGIN_REFUSED.has(e.code)) {
    return `The database at ${where} refused DATABASE_URL's user or password: fix them in DATABASE_URL.`;
  }
  if (e.code === PG_NO_DATABASE) {
    return `The database named in DATABASE_URL (${where}) does not exist: create it (createdb) or fix DATABASE_URL.`;
  }
  return undefined;
}
