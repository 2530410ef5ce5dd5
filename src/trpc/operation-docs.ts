import type { AnyRouter, inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { ErrorCode } from '../error-codes.ts';
import { type ErrorBody, type ErrorCategory, wireErrorBody } from '../errors.ts';

/**
 * What a REST operation's contract says beyond its schemas and meta: written beside the router
 * (`router.docs.ts`) so a procedure and its prose change together; the contract builder
 * (server/contract) collects them. Typed by the procedure, so an example that no longer fits the
 * input or output schema fails to compile.
 */
export interface OperationDocs<Input = unknown, Output = unknown> {
  /** Only where the meta has none. */
  description?: string;
  /** By parameter name: descriptions the schema loses (one set after `.optional()` is dropped). */
  parameters?: Partial<Record<keyof Input & string, string>>;
  /**
   * The success example, from the one sampled off the output schema: where the shared schema reads
   * differently in this operation. Method syntax on purpose: docs of any procedure fit `OperationDocs`.
   */
  responseExample?(sample: Output): Output;
  /** Answers besides the main success, with the same body, by status. */
  otherSuccesses?: Partial<Record<SuccessStatus, OtherSuccess<Output>>>;
  /** Named request examples, where one body has several forms. */
  requestExamples?: Record<string, { summary: string; value: Input }>;
  /**
   * The query the request samples (`x-codeSamples`) send; default: the required parameters and
   * those whose schema has an example.
   */
  sampleQuery?: Partial<Input>;
  /**
   * This operation's own error answers by status: what the status means here and an example per
   * code. A status without one gets the text the operation's meta gives it, else a neutral one
   * ("Not found"): never another operation's. 400, 401, 403 and 429 add the codes every operation
   * shares (`VALIDATION_FAILED`, `INVALID_CREDENTIAL`, the scope refusals, `RATE_LIMITED`) after
   * these; 404 and 409 are the operation's alone.
   */
  errors?: Partial<Record<ErrorStatus, ErrorDoc>>;
}

/** One error status of one operation, as its docs describe it. */
export interface ErrorDoc {
  /**
   * What the status means for this operation ("No such order"). The contract lists the examples'
   * codes after it, but for those it names in backticks already.
   */
  description: string;
  /** An example body for each code this operation answers with this status, the likeliest first. */
  examples: readonly [ErrorExample, ...ErrorExample[]];
}

/** An operation's answer for one error status: `errorDoc('No such order', errorExample(…))`. */
export function errorDoc(description: string, ...examples: [ErrorExample, ...ErrorExample[]]): ErrorDoc {
  return { description, examples };
}

export interface OtherSuccess<Output> {
  description: string;
  example(main: Output): Output;
}

export type SuccessStatus = '200' | '201' | '202';
export type ErrorStatus = '400' | '401' | '403' | '404' | '409' | '429';

/** A router's docs, by procedure name. */
export type RouterDocs<TRouter extends AnyRouter> = {
  [K in keyof inferRouterInputs<TRouter>]?: OperationDocs<
    inferRouterInputs<TRouter>[K],
    inferRouterOutputs<TRouter>[K]
  >;
};

/** An error body as the API sends it. */
export type ErrorExample = ErrorBody & { request_id: string };

/** One request id in every example, as if they came from one support ticket. */
export const EXAMPLE_REQUEST_ID = 'req_4vd2k7xq9mhz3w5tbn6pcjya';

/** The deployment the contract's examples are written for. */
export const EXAMPLE_PUBLIC_URL = 'https://api.stockless.example';

export function errorExample(
  error: ErrorCategory,
  code: ErrorCode | undefined,
  message: string,
  extra: Record<string, unknown> = {},
): ErrorExample {
  const body: ErrorBody = { error, ...(code ? { code } : {}), message, ...extra };
  return wireErrorBody(body, { id: EXAMPLE_REQUEST_ID, publicUrl: EXAMPLE_PUBLIC_URL });
}
