import { InvalidArgumentError } from '../errors/invalid-argument-error';
import { readRenamedOption } from './renamed-option';

/**
 * The time limit of one turn or step, in ms, from an options object: its
 * `timeoutMs`, else the deprecated `timeout` (a `TroupeWarning`, once per
 * place, says to rename it; it goes in the next minor version). Every
 * Troupe option for "how long one turn may take" is named `timeoutMs`.
 *
 * @throws InvalidArgumentError when both names are given.
 */
export function readTimeoutMs(options: { timeoutMs?: number | undefined; timeout?: number | undefined }, where: string): number | undefined {
  return readRenamedOption<number>(options, {
    name: 'timeoutMs',
    deprecatedName: 'timeout',
    where,
    warning: {
      message: `${where}.timeout is deprecated and will be removed in the next minor version: rename it to timeoutMs (milliseconds).`,
      code: 'TROUPE_TIMEOUT_RENAMED',
    },
  });
}

/**
 * Refuses keys of an options object that are not among `known`, naming the
 * right one: a misspelt time limit (`timeOut`, `timeout_ms`,
 * `turnTimeoutMs`…) is told it is `timeoutMs`, other keys get the list of
 * options (`hint` added; `of` names whose options they are: "not an option
 * of query()"). `deprecated` names are let through unlisted.
 * Without it a wrong name is silently ignored, or mistaken for another kind
 * of option.
 *
 * @throws InvalidArgumentError naming the first unknown key.
 */
export function assertKnownOptions(options: object, known: readonly string[], where: string, more: { hint?: string; deprecated?: readonly string[]; of?: string } = {}): void {
  const { hint, deprecated = [] } = more;
  const notAnOption = more.of === undefined ? 'not an option' : `not an option of ${more.of}`;
  for (const key of Object.keys(options)) {
    if (known.includes(key) || deprecated.includes(key)) continue;
    if (/time?.?out|deadline/i.test(key)) throw new InvalidArgumentError(`${where}.${key}`, `${notAnOption}; the time limit of a turn is "timeoutMs" (milliseconds)`);
    throw new InvalidArgumentError(`${where}.${key}`, `${notAnOption} (options: ${known.join(', ')})${hint ? `; ${hint}` : ''}`);
  }
}
