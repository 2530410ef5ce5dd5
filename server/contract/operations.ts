import type { ErrorDoc, OperationDocs } from '../../src/trpc/operation-docs.ts';
import { answerResponse, errorAnswer } from './error-body.ts';
import { RATE_LIMIT_HEADERS } from './headers.ts';
import type { OperationFacts } from './operation-facts.ts';
import { sampleOf } from './sample.ts';
import { type oas31, ref } from './shared.ts';

const SUCCESS_DESCRIPTIONS: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted',
};

/** An operation trpc-to-openapi generated, with what the contract adds to it. */
interface Described {
  write: boolean;
  rateLimitedHere: boolean;
  facts: OperationFacts;
}

/** One generated operation in the contract's terms: security, descriptions, statuses, examples. */
export function describeOperation(
  doc: oas31.OpenAPIObject,
  method: string,
  op: oas31.OperationObject,
  facts: OperationFacts,
) {
  const { appScope, docs } = facts;
  // API keys everywhere; app tokens where the operation has an app scope (`*`: any scope).
  op.security =
    appScope === null
      ? [{ ApiKey: [] }]
      : [{ ApiKey: [] }, { PartnerApp: appScope === '*' ? [] : [appScope] }];
  op.description ??= docs?.description;
  describeParameters(op, docs);
  const responses: oas31.ResponsesObject = op.responses ?? {};
  const success = String(facts.successStatus ?? 200);
  if (facts.successStatus && responses['200']) {
    responses[success] = responses['200'];
    delete responses['200'];
  }
  const rateLimitedHere = facts.rateLimited || appScope !== null;
  // Described with the other errors below.
  if (rateLimitedHere && !responses['429']) responses['429'] = { description: '' };
  // Every operation reads the database, so any may be stopped by the statement budget.
  responses['503'] ??= { description: '' };
  describeResponses(doc, op, responses, { write: method !== 'get', rateLimitedHere, facts });
  addOtherSuccesses(responses, success, docs);
  op.responses = sortedResponses(responses);
  const body =
    op.requestBody && 'content' in op.requestBody ? op.requestBody.content['application/json'] : undefined;
  if (body?.schema) {
    if (docs?.requestExamples) body.examples = docs.requestExamples;
    else body.example = sampleOf(doc, body.schema);
  }
}

/** A parameter's description belongs to the parameter (renderers and SDK generators read it there). */
function describeParameters(op: oas31.OperationObject, docs: OperationDocs | undefined) {
  const byName: Partial<Record<string, string>> = docs?.parameters ?? {};
  for (const param of op.parameters ?? []) {
    if ('$ref' in param) continue;
    param.description ??= param.schema?.description ?? byName[param.name];
    if (param.schema) delete param.schema.description;
    if (param.in === 'path') param.required = true;
  }
}

/** Error responses in the contract's body; successes with their headers and examples. */
function describeResponses(
  doc: oas31.OpenAPIObject,
  op: oas31.OperationObject,
  responses: oas31.ResponsesObject,
  o: Described,
) {
  const { write, rateLimitedHere, facts } = o;
  const ownErrors: Partial<Record<string, ErrorDoc>> = facts.docs?.errors ?? {};
  const context = { write, appScope: facts.appScope, rateLimited: facts.rateLimited, op };
  for (const [code, entry] of Object.entries(responses)) {
    const response: oas31.ResponseObject | oas31.ReferenceObject = entry;
    if ('$ref' in response) continue;
    if (Number(code) >= 400) {
      // Not `response.description`: trpc-to-openapi shares one response per status across operations.
      const answer = errorAnswer(code, ownErrors[code], facts.errorTexts[code], context);
      responses[code] = answerResponse(code, answer);
      continue;
    }
    if (response.description === 'Successful response')
      response.description = SUCCESS_DESCRIPTIONS[code] ?? response.description;
    response.headers = {
      'X-Request-Id': ref('headers', 'XRequestId'),
      ...(rateLimitedHere ? RATE_LIMIT_HEADERS : {}),
    };
    const media = response.content?.['application/json'];
    if (media?.schema) {
      const sample = sampleOf(doc, media.schema);
      media.example = facts.docs?.responseExample?.(sample) ?? sample;
    }
  }
}

/** Answers besides the main success, with its body (the marketplace post answers 200, 201 or 202). */
function addOtherSuccesses(
  responses: oas31.ResponsesObject,
  success: string,
  docs: OperationDocs | undefined,
) {
  for (const [code, other] of Object.entries(docs?.otherSuccesses ?? {})) {
    const main: oas31.ResponseObject = responses[success];
    const media = main.content?.['application/json'];
    responses[code] = {
      description: other.description,
      headers: main.headers,
      content: { 'application/json': { schema: media?.schema, example: other.example(media?.example) } },
    };
  }
}

function sortedResponses(responses: oas31.ResponsesObject): oas31.ResponsesObject {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}
