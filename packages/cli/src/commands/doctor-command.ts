import { DOCTOR_OPTIONS, helpText } from '../args/cli-commands';
import { parseCliArgs } from '../args/parse-cli-args';
import { CliUsageError, EXIT_CODES } from '../cli-errors';
import type { CliIo } from '../cli-io';
import { detectEnvironment, formatEnvironmentReport } from '../doctor/detect-environment';

/** `troupe doctor`: what is installed and configured. Always exits 0 (it reports; it does not judge). */
export async function runDoctorCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { options, positionals } = parseCliArgs(argv, DOCTOR_OPTIONS, 'doctor');
  if (options.help) {
    io.stdout.write(`${helpText('doctor')}\n`);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 0) throw new CliUsageError(`unexpected argument ${JSON.stringify(positionals[0])}`, { command: 'doctor' });
  const report = await detectEnvironment({ env: io.env });
  io.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatEnvironmentReport(report)}\n`);
  return EXIT_CODES.ok;
}
