// Re-exported by index.ts: the declaration's comment (or its absence) is what the check reads.

export const undocumentedHelper = (): string => 'helper';

/** Documented where it is declared, so re-exporting it needs no second comment. */
export interface DocumentedOptions {
  /** A field. */
  value?: number;
}
