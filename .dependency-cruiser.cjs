/**
 * The layers of the house (docs/architecture.md), checked in CI by `npm run lint:deps`:
 * - `server/` (HTTP, CLI, runtime) composes everything; `jobs/` (worker tasks) sits under it;
 *   `src/` (the domains) under both, and never imports either.
 * - In `src/`, the bottom (`errors.ts`, `settings.ts`, `order-status.ts`, `db/`) imports no domain;
 *   it may read the event vocabulary (`events/vocabulary/`, which imports nothing) for job payloads;
 *   `events/` and `mail/` take what the domains above them give (fan-out, attachments) by injection;
 *   `trpc/` (the procedure glue) imports no domain but `auth/` and `ratelimit/`, which import none;
 *   nor does `idempotency/` (the REST API's idempotency keys).
 * - No cycle between folders or between modules.
 */
const DOMAINS =
  '^src/(catalogue|demo|events-api|external-orders|inventory|listings|mcp|oauth|orders|platform|sandbox|store|test-helpers|webhooks)/';

module.exports = {
  forbidden: [
    {
      name: 'no-module-cycle',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'src-imports-no-app',
      comment: 'The domains are used by the server and the worker, never the other way round.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(server|jobs|client|bench|test|scripts)/' },
    },
    {
      name: 'jobs-import-no-server',
      severity: 'error',
      from: { path: '^jobs/' },
      to: { path: '^server/' },
    },
    {
      name: 'bottom-imports-no-domain',
      comment: 'Errors, shared settings and the database helpers are what every domain may reach.',
      severity: 'error',
      from: { path: '^src/(errors|error-codes|settings|order-status)\\.ts$|^src/db/' },
      to: {
        path: `${DOMAINS}|^src/(auth|events|mail|ratelimit|trpc)/`,
        pathNot: '^src/events/vocabulary/',
      },
    },
    {
      name: 'events-and-mail-import-no-domain',
      comment: 'The outbox, the dispatcher and the mailer get the domains above them injected.',
      severity: 'error',
      from: { path: '^src/(events|mail)/' },
      to: { path: DOMAINS },
    },
    {
      name: 'auth-and-limits-import-no-domain',
      comment:
        'Credentials, scopes, limits and idempotency keys sit under the transports; a store owns its keys.',
      severity: 'error',
      from: { path: '^src/(auth|ratelimit|idempotency)/' },
      to: { path: DOMAINS },
    },
    {
      name: 'trpc-imports-no-domain',
      comment: 'Procedure glue: auth and rate limits only; each domain imports it for its router.',
      severity: 'error',
      from: { path: '^src/trpc/' },
      to: { path: DOMAINS },
    },
  ],
  options: {
    // TypeScript 7 has no JavaScript API for dependency-cruiser to parse with: swc reads the sources.
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/migrations/' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
