import { ConfigError } from '@troupe/core';
import { z } from 'zod';

/** Escapes a string for use inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A case-insensitive, whole-word matcher for a keyword or phrase (Unicode letters and digits count as word characters). */
export function keywordMatcher(keyword: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(keyword.trim())}(?![\\p{L}\\p{N}_])`, 'iu');
}

/** Turns a pattern option into a RegExp: strings are compiled case-insensitive. */
export function patternMatcher(pattern: string | RegExp, where: string): RegExp {
  if (pattern instanceof RegExp) return new RegExp(pattern.source, pattern.flags.replace('g', '').replace('y', ''));
  try {
    return new RegExp(pattern, 'iu');
  } catch (error) {
    throw new ConfigError(where, [{ path: [], message: `invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}` }], { cause: error });
  }
}

/** The text a processor reads from a perception: subject and content. */
export function perceptionText(perception: { subject?: string; content: string }): string {
  return perception.subject ? `${perception.subject}\n${perception.content}` : perception.content;
}

/** Zod schema for a pattern option: a RegExp or a string compiled case-insensitive. */
export const patternSchema = z.union([z.string().min(1), z.instanceof(RegExp)], { error: 'expected a RegExp or a non-empty string' });

/** Zod schema for a function option. */
export const functionSchema = <T>() => z.custom<T>((value) => typeof value === 'function', { error: 'expected a function' });

/** Validates processor options, throwing a ConfigError whose source names the stage. */
export function parseOptions<S extends z.ZodType>(schema: S, value: unknown, stage: string): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw ConfigError.fromZod(`${stage} options`, result.error);
  return result.data;
}

/** Adds tags to a list without duplicates. */
export function withTags(tags: readonly string[] | undefined, added: readonly string[]): string[] {
  const out = tags ? [...tags] : [];
  for (const tag of added) if (!out.includes(tag)) out.push(tag);
  return out;
}
