import { SpanKind } from '@opentelemetry/api';
import {
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_SYSTEM_NAME,
} from '@opentelemetry/semantic-conventions';
import type pg from 'pg';
import { failSpan, inRecordedSpan, startSpan, tracingOn } from '../src/tracing/spans.ts';

/** A statement's text in a span is cut here: bulk statements can be long, and every span is exported. */
const MAX_TEXT = 2000;

/** The text of a statement as pg's query takes it (a string or a config with `text`). */
function textOf(arg: unknown): string {
  const text = typeof arg === 'string' ? arg : (arg as { text?: unknown } | undefined)?.text;
  return typeof text === 'string' ? text : '';
}

/** The statement's first keyword (`SELECT`, `WITH`, `INSERT`…): the span's name, bounded. */
function operationOf(text: string): string {
  return /^\s*([a-z]+)/i.exec(text)?.[1]?.toUpperCase() ?? 'postgresql';
}

/**
 * pg's client (or a subclass), with a span for every statement run inside a traced request or job:
 * its text, never its parameters (a buyer's name or address). Kysely and MikroORM both run every
 * statement through `client.query`, so no driver is patched. Statements outside a span (the pool's
 * own, a delivery run's polling) are not traced: they would be a trace each. Tracing off: `Base` itself.
 */
export function tracedClient(Base: typeof pg.Client): typeof pg.Client {
  if (!tracingOn()) return Base;
  return class TracedClient extends Base {
    // biome-ignore lint/suspicious/noExplicitAny: every overload of pg's query is passed through as it is.
    override query(...args: any[]): any {
      if (!inRecordedSpan() || typeof args[args.length - 1] === 'function')
        return Reflect.apply(super.query, this, args);
      const text = textOf(args[0]);
      const operation = operationOf(text);
      const span = startSpan(operation, {
        kind: SpanKind.CLIENT,
        attributes: {
          [ATTR_DB_SYSTEM_NAME]: 'postgresql',
          [ATTR_DB_OPERATION_NAME]: operation,
          [ATTR_DB_QUERY_TEXT]: text.slice(0, MAX_TEXT),
        },
      });
      let result: unknown;
      try {
        result = Reflect.apply(super.query, this, args);
      } catch (err) {
        failSpan(span, err);
        span.end();
        throw err;
      }
      if (!(result instanceof Promise)) {
        span.end();
        return result;
      }
      return result.then(
        (value: unknown) => {
          span.end();
          return value;
        },
        (err: unknown) => {
          const code = (err as { code?: unknown }).code;
          if (typeof code === 'string') span.setAttribute('db.response.status_code', code);
          failSpan(span, err);
          span.end();
          throw err;
        },
      );
    }
  };
}
