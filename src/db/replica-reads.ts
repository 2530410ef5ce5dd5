import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A replica chosen for one read: its EntityManager, and what to do when the read fails there.
 */
export interface ReplicaChoice {
  em: EntityManager;
  /**
   * Told a failure of the read on this replica: true when the replica is to blame (down, or a
   * statement cancelled by a recovery conflict), so the read runs again on the primary; false when
   * the read would have failed on the primary too.
   */
  failed(err: unknown): boolean;
}

/**
 * The API process's read replicas (server/replicas/), as the procedures see them: a procedure whose
 * meta says `readsFrom: 'replica'` asks for one, and runs on the primary when none is offered.
 */
export interface ReplicaReads {
  /**
   * A replica that is up, within the lag bound, and has replayed past `after` (a pg_lsn in text,
   * the caller's last write), or undefined: read from the primary.
   */
  choose(after: string | undefined): ReplicaChoice | undefined;
}
