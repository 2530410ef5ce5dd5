import type { AppError } from '../../src/errors.ts';
import { InputRefused, jsonValueRefusal, parseJsonText, refusalError } from '../http-input.ts';

/** A JSON-RPC request's id, as the SDK hands it to a tool's handler. */
type RequestId = string | number;

/**
 * The most messages one POST may carry. MCP 2025-06-18 dropped batches; older clients may still send
 * them, and each message counts against the client's rate limit.
 */
export const MAX_BATCH = 20;

export interface ScreenedBody {
  body: unknown;
  /** How many JSON-RPC requests (messages with an id, expecting an answer) the body holds. */
  requests: number;
  /** The tools its `tools/call` requests name, in order. */
  tools: string[];
  /** Tool calls whose arguments were refused, by request id: answered as tool errors. */
  refusedArguments: Map<RequestId, AppError>;
}

type Message = { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown } } | null;

/**
 * Reads an MCP POST body. A tool call's arguments are the model's input to a tool, so text
 * PostgreSQL cannot store or a prototype key there is refused as REST refuses a field (a tool error
 * with `VALIDATION_FAILED`), not as a broken message; the call then reaches the SDK with no
 * arguments, and its handler answers the refusal. Anything wrong elsewhere in the message is a
 * transport error (thrown `InputRefused`).
 */
export function screenBody(text: string): ScreenedBody {
  const body = parseJsonText(text, 'ignore');
  const list = (Array.isArray(body) ? body : [body]) as Message[];
  if (list.length > MAX_BATCH)
    throw new InputRefused(400, 'VALIDATION_FAILED', `A batch may hold at most ${MAX_BATCH} messages`);
  const refusedArguments = new Map<RequestId, AppError>();
  for (const message of list) {
    const params = message?.params;
    if (message?.method !== 'tools/call' || typeof params !== 'object' || params === null) continue;
    const id = message.id;
    const refusal = jsonValueRefusal(params.arguments);
    if (!refusal || (typeof id !== 'string' && typeof id !== 'number')) continue;
    refusedArguments.set(id, refusalError(refusal));
    params.arguments = {};
  }
  const refusal = jsonValueRefusal(body);
  if (refusal) throw refusal;
  const requests = list.filter((m) => m?.id !== undefined && m?.method !== undefined).length;
  const tools = list.flatMap((m) =>
    m?.method === 'tools/call' && typeof m.params?.name === 'string' ? [m.params.name] : [],
  );
  return { body, requests, tools, refusedArguments };
}
