import type { EntityManager } from '@mikro-orm/postgresql';
import { rows } from '../db/sql.ts';
import { readyQuery, type Waiting } from './queries.ts';

/** How often a process looks for events its long polls wait for. */
export const POLL_MS = 250;

interface Waiter extends Waiting {
  em: EntityManager;
  settle(ready: boolean): void;
}

/**
 * Every long poll of one process on one database, looked at together: one statement per tick answers
 * which of them now have an event (`readyQuery`), however many wait. Between ticks nothing is held: no
 * connection, no transaction, no LISTEN session (so it works behind a transaction-mode pooler too). A
 * tick runs only while someone waits.
 */
class Waits {
  readonly #waiters = new Set<Waiter>();
  #timer: NodeJS.Timeout | undefined;

  /** Resolves true once an event is there to read, false at `deadline` (epoch ms). */
  until(em: EntityManager, waiting: Waiting, deadline: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timeout = setTimeout(() => waiter.settle(false), Math.max(0, deadline - Date.now()));
      const waiter: Waiter = {
        ...waiting,
        em,
        settle: (ready) => {
          if (!this.#waiters.delete(waiter)) return;
          clearTimeout(timeout);
          resolve(ready);
        },
      };
      this.#waiters.add(waiter);
      this.#schedule();
    });
  }

  #schedule() {
    if (this.#timer || this.#waiters.size === 0) return;
    this.#timer = setTimeout(() => void this.#tick(), POLL_MS);
    // A waiting request keeps its socket open; the timer alone never keeps the process alive.
    this.#timer.unref();
  }

  async #tick() {
    const waiting = [...this.#waiters];
    try {
      const [one] = waiting;
      if (!one) return;
      const ready = await rows(one.em, readyQuery(waiting));
      for (const r of ready) waiting[Number(r.i) - 1]?.settle(true);
    } catch {
      // The database failed: let every poll read again now, so its own statement reports the failure.
      for (const w of waiting) w.settle(true);
    } finally {
      this.#timer = undefined;
      this.#schedule();
    }
  }
}

/** One registry per database (an ORM's driver): tests run several in one process. */
const registries = new WeakMap<object, Waits>();

/**
 * Waits until the store's log has an event `waiting` would read, or `deadline` passes; true when one
 * is there. The caller reads its page again: an event is visible only once every transaction older
 * than it has ended, which the tick's statement asks of the database as the page's does.
 */
export function waitForEvents(em: EntityManager, waiting: Waiting, deadline: number): Promise<boolean> {
  const driver = em.getDriver();
  let waits = registries.get(driver);
  if (!waits) {
    waits = new Waits();
    registries.set(driver, waits);
  }
  return waits.until(em, waiting, deadline);
}
