/**
 * Batch writes with Xero's `summarizeErrors` semantics: by default one bad element fails the whole
 * call with a 400 ValidationException and nothing is saved; with summarizeErrors=false every valid
 * element is saved and each element carries StatusAttributeString OK/ERROR.
 */
import type { Json } from './serialize';
import { XeroError } from './errors';

export type ElementOutcome =
  | { ok: true; json: Json; undo: () => void; commit: () => void }
  | { ok: false; echo: Json; errors: string[] };

export class ElementErrors extends Error {
  constructor(readonly messages: string[]) {
    super(messages.join('; '));
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The array under `key` ({"Invoices":[…]}), or a bare object treated as one element. */
export function elementsOf(body: unknown, key: string): Record<string, unknown>[] {
  if (!isPlainObject(body)) throw XeroError.postDataInvalid('The request body is empty or is not valid JSON');
  const list = body[key];
  if (list === undefined) return [body];
  if (!Array.isArray(list)) throw XeroError.postDataInvalid(`${key} must be an array`);
  if (list.length === 0) throw XeroError.postDataInvalid(`No ${key} were provided`);
  return list.map((el) => {
    if (!isPlainObject(el)) throw XeroError.postDataInvalid(`Each of ${key} must be an object`);
    return el;
  });
}

export function runBatch(
  elements: Record<string, unknown>[],
  summarizeErrors: boolean,
  errorFlag: 'HasErrors' | 'HasValidationErrors',
  apply: (el: Record<string, unknown>) => ElementOutcome,
): Json[] {
  const outcomes: ElementOutcome[] = [];
  for (const el of elements) {
    let outcome: ElementOutcome;
    try {
      outcome = apply(el);
    } catch (error) {
      if (!(error instanceof ElementErrors)) throw error;
      outcome = { ok: false, echo: el, errors: error.messages };
    }
    outcomes.push(outcome);
  }
  const failed = outcomes.filter((o): o is Extract<ElementOutcome, { ok: false }> => !o.ok);
  if (summarizeErrors && failed.length > 0) {
    for (const o of [...outcomes].reverse()) if (o.ok) o.undo();
    throw XeroError.validation(
      failed.map((f) => ({ ...f.echo, ValidationErrors: f.errors.map((Message) => ({ Message })) })),
    );
  }
  for (const o of outcomes) if (o.ok) o.commit();
  return outcomes.map((o) =>
    o.ok
      ? summarizeErrors
        ? o.json
        : { ...o.json, StatusAttributeString: 'OK' }
      : {
          ...o.echo,
          [errorFlag]: true,
          StatusAttributeString: 'ERROR',
          ValidationErrors: o.errors.map((Message) => ({ Message })),
        },
  );
}

export function summarizeFlag(q: Record<string, string | undefined>): boolean {
  return (q.summarizeerrors ?? 'true').toLowerCase() !== 'false';
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
