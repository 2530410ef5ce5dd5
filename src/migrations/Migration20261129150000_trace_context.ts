import { Migration } from '@mikro-orm/migrations';

/**
 * The trace context of the request that caused an event (docs/tracing.md): a W3C `traceparent` on the
 * outbox row, written in the request's transaction when tracing is on, and on the stored webhook event,
 * written by the dispatcher, so each delivery attempt is a span of the request's trace although one
 * dispatcher job serves the events of many requests. Nullable, no default: adding them rewrites no row.
 */
export class Migration20261129150000_trace_context extends Migration {
  override name = 'Migration20261129150000_trace_context';

  override async up(): Promise<void> {
    this.addSql('ALTER TABLE domain_events ADD COLUMN traceparent text');
    this.addSql('ALTER TABLE webhook_events ADD COLUMN traceparent text');
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE webhook_events DROP COLUMN traceparent');
    this.addSql('ALTER TABLE domain_events DROP COLUMN traceparent');
  }
}
