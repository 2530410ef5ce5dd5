import type { IncomingMessage } from 'node:http';
import { newRequestState, type RequestState } from '../src/trpc/request-state.ts';
import { requestIdOf } from './request-id.ts';

/**
 * A request with its state (src/trpc/request-state.ts). The edge creates the state once and passes
 * it down as an argument; it rides on the request only for the tRPC adapters, whose `createContext`
 * is handed nothing else.
 */
export type EdgeRequest = IncomingMessage & { readonly state: RequestState };

/** The request's state, created once as it arrives: its id (the client's, when usable) and method. */
export function startRequest(req: IncomingMessage, publicUrl: string): EdgeRequest {
  const state = newRequestState(requestIdOf(req.headers['x-request-id']), req.method, publicUrl);
  return Object.assign(req, { state });
}

/** The state the edge created for a request an adapter hands back. */
export function stateOf(req: IncomingMessage): RequestState {
  const { state } = req as Partial<EdgeRequest>;
  if (!state) throw new Error('A request reached an adapter without the state the edge creates');
  return state;
}
