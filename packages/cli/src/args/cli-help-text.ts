import type { CliCatalogue } from '../i18n/cli-catalogue';
import type { CliHelpTopic } from '../i18n/cli-help-texts';
import {
  COMMAND_NAMES,
  DASHBOARD_OPTIONS,
  DEVHUB_OPTIONS,
  DOCTOR_OPTIONS,
  HELP_OPTIONS,
  LOOPER_OPTIONS,
  MIGRATE_OPTIONS,
  ROOT_OPTIONS,
  SUBMIT_OPTIONS,
  TEAM_OPTIONS,
  USAGE_OPTIONS,
  APPROVALS_OPTIONS,
  BEST_OF_N_OPTIONS,
  APPROVE_OPTIONS,
  DENY_OPTIONS,
  WORKER_OPTIONS,
  WORKSPACES_OPTIONS,
  EVAL_OPTIONS,
  type CliCommandOption,
} from './cli-command-options';

/** What a help page shows after its usage line and description, in this order. */
interface HelpLayout {
  options: readonly CliCommandOption[];
  /** The commands and their summaries, before the options (`troupe --help`). */
  commands?: true;
  /** The known command names, in the description (`troupe help --help`). */
  commandNames?: true;
  examples?: true;
  /** The built-in agents and the registry. */
  agents?: true;
  /** "Run troupe COMMAND --help", after the options. */
  commandHelp?: true;
  /** How the language is chosen. */
  language?: true;
  exitCodes?: true;
}

const LAYOUTS: Readonly<Record<CliHelpTopic, HelpLayout>> = {
  troupe: { options: ROOT_OPTIONS, commands: true, commandHelp: true, language: true, exitCodes: true },
  looper: { options: LOOPER_OPTIONS, examples: true, agents: true, language: true, exitCodes: true },
  worker: { options: WORKER_OPTIONS, examples: true, exitCodes: true },
  submit: { options: SUBMIT_OPTIONS, examples: true, exitCodes: true },
  devhub: { options: DEVHUB_OPTIONS, language: true, exitCodes: true },
  team: { options: TEAM_OPTIONS, language: true },
  'best-of-n': { options: BEST_OF_N_OPTIONS, examples: true, agents: true, exitCodes: true },
  dashboard: { options: DASHBOARD_OPTIONS, language: true },
  doctor: { options: DOCTOR_OPTIONS },
  usage: { options: USAGE_OPTIONS },
  workspaces: { options: WORKSPACES_OPTIONS },
  eval: { options: EVAL_OPTIONS },
  approvals: { options: APPROVALS_OPTIONS },
  approve: { options: APPROVE_OPTIONS },
  deny: { options: DENY_OPTIONS },
  help: { options: HELP_OPTIONS, commandNames: true },
  'migrate-registry': { options: MIGRATE_OPTIONS },
};

/**
 * The `--help` text of `troupe` (topic `troupe`) or one of its commands, in
 * the catalogue's language: the option tables say what each command accepts,
 * the catalogue says it in words.
 */
export function helpText(topic: CliHelpTopic, catalogue: CliCatalogue): string {
  const texts = catalogue.help;
  const layout = LAYOUTS[topic];
  const page = texts.commands[topic];
  const lines: string[] = [page.usage, '', ...page.about];
  if (layout.commandNames) lines.push(texts.helpCommands(COMMAND_NAMES));
  if (layout.commands) lines.push('', texts.headings.commands, ...COMMAND_NAMES.map((name) => `  ${name.padEnd(18)}${texts.summaries[name]}`));
  lines.push('', layout.commands ? texts.headings.rootOptions : texts.headings.options, formatOptions(layout.options, catalogue));
  if (layout.commandHelp) lines.push('', texts.commandHelp);
  if (layout.examples && 'examples' in page) lines.push('', texts.headings.examples, ...page.examples);
  if (layout.agents) lines.push('', ...texts.agents);
  if (layout.language) lines.push('', texts.language);
  if (layout.exitCodes) lines.push('', texts.headings.exitCodes, ...Object.entries(catalogue.cli.exitCodes).map(([code, meaning]) => `  ${code.padEnd(4)} ${meaning}`));
  return lines.join('\n');
}

/** One row per shown option: its spellings and placeholder, then its description. */
function formatOptions(specs: readonly CliCommandOption[], catalogue: CliCatalogue): string {
  const rows = specs.flatMap((spec) =>
    spec.help === undefined ? [] : [[`${spec.short ? `-${spec.short}, ` : '    '}--${spec.name}${spec.value ? ` ${spec.value}` : ''}`, catalogue.help.options[spec.help]] as const],
  );
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`).join('\n');
}
