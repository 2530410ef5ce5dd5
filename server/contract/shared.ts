import type { oas31 } from 'zod-openapi';

// What the hand-written parts of the contract share: OpenAPI 3.1 types and references. The types are
// zod-openapi's: a dependency already, and the model of the document trpc-to-openapi returns.
export type { oas31 };

export type Schema = oas31.SchemaObject | oas31.ReferenceObject;

export const ref = (kind: keyof oas31.ComponentsObject, name: string): oas31.ReferenceObject => ({
  $ref: `#/components/${kind}/${name}`,
});

/** The JSON-pointer target of a local `$ref` (`#/components/schemas/Order`), undefined if absent. */
export function pointer(doc: oas31.OpenAPIObject, $ref: string): unknown {
  const path = $ref.replace(/^#\//, '').split('/');
  return path.reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), doc);
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;
