// A package entry with every kind of export the API-docs check must judge (see api-docs.test.ts).

/** Documented: a function whose comment says why it exists. */
export function documentedFunction(): number {
  return 1;
}

export interface UndocumentedInterface {
  field: string;
}

/** @public */
export const tagOnlyConst = 1;

/** @deprecated Import `documentedFunction` instead; this alias goes in the next minor version. */
export const deprecatedAlias = documentedFunction;

/** @internal */
export const internalConst = 2;

export { undocumentedHelper, type DocumentedOptions } from './undocumented-helpers';
