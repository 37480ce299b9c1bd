import { CliUsageError } from '../cli-errors';
import { englishCliMessages, type CliMessages } from '../i18n/cli-messages';

/** One option a command accepts. */
export interface CliOptionSpec {
  /** Long name without dashes (`workspace`). */
  name: string;
  /** One-letter alias without the dash (`w`). */
  short?: string;
  /** `string` takes a value (`--workspace DIR` or `--workspace=DIR`); `boolean` takes none. */
  type: 'string' | 'boolean';
  /** Shown in `--help` and usage errors: the value's placeholder (`DIR`). */
  value?: string;
  /** A `string` option that may be given more than once; read its values with {@link repeatedOption}. */
  repeatable?: boolean;
}

/** Joins the values of a repeatable option in `options` (a newline: no folder name or URL a user types holds one). */
const REPEAT_SEPARATOR = '\n';

/** What {@link parseCliArgs} read. */
export interface ParsedCliArgs {
  /** Option values by long name. */
  options: Record<string, string | boolean | undefined>;
  /** Arguments that are not options, in order. */
  positionals: string[];
}

/**
 * Parses argv against a command's options. Accepts `--name value`,
 * `--name=value`, `-n value`, boolean flags, and `--` (everything after it is
 * positional).
 *
 * @throws CliUsageError naming the unknown option, or the option missing its value (worded by `messages`).
 */
export function parseCliArgs(argv: readonly string[], specs: readonly CliOptionSpec[], command: string, messages: CliMessages = englishCliMessages): ParsedCliArgs {
  const m = messages.usage;
  const byLong = new Map(specs.map((spec) => [spec.name, spec]));
  const byShort = new Map(specs.filter((spec) => spec.short).map((spec) => [spec.short as string, spec]));
  const options: Record<string, string | boolean | undefined> = {};
  const positionals: string[] = [];
  const hint = m.hint(command);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const long = arg.startsWith('--');
    const body = long ? arg.slice(2) : arg.slice(1);
    const equals = long ? body.indexOf('=') : -1;
    const name = equals >= 0 ? body.slice(0, equals) : body;
    const spec = long ? byLong.get(name) : byShort.get(name);
    if (!spec) {
      const suggestion = long ? closest(name, [...byLong.keys()]) : undefined;
      throw new CliUsageError(`${m.unknownOption(arg.split('=')[0] as string, commandLabel(command), suggestion)}; ${hint}`, { command });
    }
    if (spec.type === 'boolean') {
      if (equals >= 0) throw new CliUsageError(`${m.takesNoValue(spec.name)}; ${hint}`, { command });
      options[spec.name] = true;
      continue;
    }
    let value: string | undefined;
    if (equals >= 0) value = body.slice(equals + 1);
    else {
      value = argv[i + 1];
      if (value === undefined || (value.startsWith('-') && value.length > 1 && !/^-\d/.test(value))) {
        throw new CliUsageError(`${m.needsValue(arg, spec.value ?? 'VALUE')}; ${hint}`, { command });
      }
      i++;
    }
    const earlier = options[spec.name];
    if (earlier !== undefined && !spec.repeatable) throw new CliUsageError(`${m.givenTwice(spec.name)}; ${hint}`, { command });
    options[spec.name] = typeof earlier === 'string' ? `${earlier}${REPEAT_SEPARATOR}${value}` : value;
  }
  return { options, positionals };
}

/** The values of a repeatable option (see {@link CliOptionSpec.repeatable}), in the order given; `[]` when absent. */
export function repeatedOption(value: string | boolean | undefined): string[] {
  return typeof value === 'string' ? value.split(REPEAT_SEPARATOR) : [];
}

function commandLabel(command: string): string {
  return command === 'troupe' ? 'troupe' : `troupe ${command}`;
}

/** The known name closest to a typo (edit distance ≤ 2), for "did you mean". */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(input, name);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] as number;
      row[j] = Math.min(current + 1, (row[j - 1] as number) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] as number;
}

/** Reads a positive integer option. */
export function positiveIntegerOption(
  value: string | boolean | undefined,
  name: string,
  command: string,
  messages: CliMessages = englishCliMessages,
): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1) {
    throw new CliUsageError(messages.usage.positiveInteger(name, value), { command });
  }
  return number;
}

/** Reads an option whose value must be one of `choices`. */
export function choiceOption<T extends string>(
  value: string | boolean | undefined,
  name: string,
  choices: readonly T[],
  command: string,
  messages: CliMessages = englishCliMessages,
): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    throw new CliUsageError(messages.usage.choice(name, choices, value), { command });
  }
  return value as T;
}
