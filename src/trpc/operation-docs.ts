import type { AnyRouter, inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { ErrorBody, ErrorCategory } from '../errors.ts';

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
  /** This operation's own error examples by status; the others get a generic one. */
  errors?: Partial<Record<ErrorStatus, ErrorExample>>;
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

export function errorExample(
  error: ErrorCategory,
  code: string | undefined,
  message: string,
  extra: Record<string, unknown> = {},
): ErrorExample {
  return { error, ...(code ? { code } : {}), message, ...extra, request_id: EXAMPLE_REQUEST_ID };
}
