import { DOCTOR_OPTIONS } from '../args/cli-command-options';
import { helpText } from '../args/cli-help-text';
import { parseCliArgs } from '../args/parse-cli-args';
import { CliUsageError, EXIT_CODES } from '../cli-errors';
import { catalogueOf, type CliIo } from '../cli-io';
import { detectEnvironment, formatEnvironmentReport } from '../doctor/detect-environment';
import { formatRegistryReport, inspectRegistry, registryAgentClis, registryHasProblems } from '../doctor/registry-report';
import { resolveWorkspacePath } from '../workspace/troupe-workspace';

/**
 * `troupe doctor`: what is installed and configured — the agent CLIs (as the
 * agent registry defines them, else on `PATH`), the model keys, and the agent
 * registry with each of its entries and their versions. Exits 0, or 2 when
 * the registry is invalid or one of its entries cannot be used.
 */
export async function runDoctorCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const m = catalogueOf(io).cli;
  const { options, positionals } = parseCliArgs(argv, DOCTOR_OPTIONS, 'doctor', m);
  if (options.help) {
    io.stdout.write(`${helpText('doctor', catalogueOf(io))}\n`);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 0) throw new CliUsageError(m.usage.unexpectedArgument(positionals[0] as string), { command: 'doctor' });
  const workspaceRoot = typeof options.workspace === 'string' ? resolveWorkspacePath(options.workspace, io.cwd, m) : io.cwd;
  const registry = await inspectRegistry({ option: typeof options.registry === 'string' ? options.registry : undefined, workspaceRoot, env: io.env, cwd: io.cwd }, m);
  // What `--coder claude` runs is the registry's entry when there is one: the CLIs, and the demo plan, are judged by it.
  const report = await detectEnvironment({ env: io.env, registry: registryAgentClis(registry) });
  io.stdout.write(options.json ? `${JSON.stringify({ ...report, registry }, null, 2)}\n` : `${formatEnvironmentReport(report)}\n\n${formatRegistryReport(registry, m)}\n`);
  return registryHasProblems(registry) ? EXIT_CODES.usage : EXIT_CODES.ok;
}
