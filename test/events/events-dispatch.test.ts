import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows, sql } from '../../src/db/sql.ts';
import { type DispatchedEvent, dispatchPendingEvents } from '../../src/events/dispatch.ts';
import { recordEvents } from '../../src/events/outbox.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

describe('event dispatch', () => {
  it('hands a batch on oldest first, by id as a number (96 before 100), not as the text the id is sent as', async () => {
    const { id: storeId } = await app.createStore('Dispatch order');
    await dispatchPendingEvents(app.em(), async () => {});
    // The batch's ids run 96 to 107: as text, '100' sorts before '96'.
    await rows(app.em(), sql`SELECT setval(pg_get_serial_sequence('domain_events', 'id'), 95)`);
    const events = Array.from({ length: 12 }, (_, i) => ({
      storeId,
      event: 'product.updated' as const,
      entityId: i + 1,
      data: { product_id: i + 1 },
    }));
    await app.em().transactional((tx) => recordEvents(tx, events));
    const handed: DispatchedEvent[] = [];
    await dispatchPendingEvents(app.em(), async (_tx, batch) => {
      handed.push(...batch);
    });
    expect(handed.map((e) => e.id)).toEqual(Array.from({ length: 12 }, (_, i) => String(96 + i)));
    expect(handed.map((e) => Number(e.entity_id))).toEqual(events.map((e) => e.entityId));
  });
});
