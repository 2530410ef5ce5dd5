import { Stockless } from '../../client/src/client.ts';

/** What one positional argument of an SDK method is. */
export type SdkArgument = { kind: 'path'; name: string } | { kind: 'query' } | { kind: 'body' };

/** How the SDK calls one operation: `stockless.<group>.<method>(…arguments)`. */
export interface SdkMethod {
  group: string;
  method: string;
  /** Its positional parameters before the call options, in order. */
  arguments: SdkArgument[];
}

/**
 * The SDK's methods by the operationId each calls, read off a live client (client/src/client.ts):
 * every method of a group is an arrow function
 * `(id, body, o = {}) => this.#http.call('<operationId>', { path: { id }, body, ...o })`, whose
 * source text (types stripped) names its operation and where each positional parameter goes.
 * Methods built on others (`iterate`, `sync`) call no operation themselves and are left out, as is
 * any method written otherwise: its operation's sample then uses fetch. Read once, synchronously
 * (the document is built synchronously): the client is the running code, so a sample names a method
 * that exists, with the arguments it takes.
 */
export function sdkMethods(): Map<string, SdkMethod> {
  methods ??= readMethods();
  return methods;
}

let methods: Map<string, SdkMethod> | undefined;

function readMethods(): Map<string, SdkMethod> {
  const client = new Stockless({ baseUrl: 'http://localhost', apiKey: 'sl_test_sample' });
  const out = new Map<string, SdkMethod>();
  for (const [group, members] of Object.entries(client)) readGroup(group, members, out);
  return out;
}

/** One group's methods; a group inside it (`testHelpers.orders`) is read as `group.inner`. */
function readGroup(group: string, members: unknown, out: Map<string, SdkMethod>) {
  if (!members || typeof members !== 'object') return;
  for (const [method, fn] of Object.entries(members as Record<string, unknown>)) {
    if (fn && typeof fn === 'object') readGroup(`${group}.${method}`, fn, out);
    if (typeof fn !== 'function') continue;
    const read = readMethod(Function.prototype.toString.call(fn));
    if (read && !out.has(read.operationId))
      out.set(read.operationId, { group, method, arguments: read.arguments });
  }
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** An arrow function's operation and arguments, or undefined when it is not a direct call. */
export function readMethod(source: string): { operationId: string; arguments: SdkArgument[] } | undefined {
  const text = source.trim().replace(/^async\s+/, '');
  const params = text.startsWith('(') ? splitTopLevel(inside(text, 0) ?? '') : [text.split('=>')[0] ?? ''];
  const call = /this\.#http\.call\(\s*(['"])([\w$]+)\1/.exec(text);
  if (!call?.[2]) return undefined;
  const args = splitTopLevel(inside(text, call.index + call[0].indexOf('(')) ?? '');
  const roles = rolesOf(args[1]?.trim() ?? '');
  if (!roles) return undefined;
  const out: SdkArgument[] = [];
  for (const param of params) {
    const name = /^\s*(?:\.\.\.)?([A-Za-z_$][\w$]*)/.exec(param)?.[1];
    if (!name) continue;
    const role = roles.get(name);
    if (!role) return undefined;
    if (role === 'options') break;
    out.push(role);
  }
  return { operationId: call[2], arguments: out };
}

/** What each identifier of a call's input (`{ path: { id }, body, ...o }`, or `o`) carries. */
function rolesOf(input: string): Map<string, SdkArgument | 'options'> | undefined {
  const roles = new Map<string, SdkArgument | 'options'>();
  if (input === '') return roles;
  if (IDENTIFIER.test(input)) return roles.set(input, 'options');
  if (!input.startsWith('{')) return undefined;
  for (const entry of splitTopLevel(inside(input, 0) ?? '')) {
    const spread = /^\s*\.\.\.\s*([A-Za-z_$][\w$]*)\s*$/.exec(entry);
    if (spread?.[1]) {
      roles.set(spread[1], 'options');
      continue;
    }
    const [key = '', value = key] = entry.split(/:(.*)/s).map((s) => s.trim());
    if (key === 'path' && value.startsWith('{')) {
      for (const p of splitTopLevel(inside(value, 0) ?? '')) {
        const [name = '', param = name] = p.split(':').map((s) => s.trim());
        if (IDENTIFIER.test(param)) roles.set(param, { kind: 'path', name });
      }
    } else if ((key === 'query' || key === 'body') && IDENTIFIER.test(value)) {
      roles.set(value, { kind: key });
    }
  }
  return roles;
}

const OPEN = '([{';
const CLOSE = ')]}';

/** The text inside the bracket at `at`, up to its matching close (strings are not expected). */
function inside(text: string, at: number): string | undefined {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text[i] ?? '';
    if (OPEN.includes(c)) depth++;
    else if (CLOSE.includes(c) && --depth === 0) return text.slice(at + 1, i);
  }
  return undefined;
}

/** `a, { b, c }, d = {}` → its three parts (commas inside brackets stay); empty parts dropped. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (OPEN.includes(c)) depth++;
    else if (CLOSE.includes(c)) depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter(Boolean);
}
