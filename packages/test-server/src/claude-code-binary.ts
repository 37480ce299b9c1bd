import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Claude Code's native binary, from the `@anthropic-ai/claude-code` that
 * resolves from `from` (a test file's `import.meta.url`, or a path inside the
 * package that pins the CLI as a devDependency). pnpm skips the package's
 * postinstall, which copies the binary over the wrapper's placeholder
 * `bin/claude.exe`, so it comes from the platform package while the wrapper's
 * bin is still that placeholder.
 */
export function claudeCodeBinary(from: string): string {
  const manifest = createRequire(from).resolve('@anthropic-ai/claude-code/package.json');
  const wrapperBin = join(dirname(manifest), 'bin', 'claude.exe');
  if (existsSync(wrapperBin) && statSync(wrapperBin).size > 1_000_000) return wrapperBin;
  const platform = createRequire(manifest).resolve(`@anthropic-ai/claude-code-${process.platform}-${process.arch}/package.json`);
  return join(dirname(platform), process.platform === 'win32' ? 'claude.exe' : 'claude');
}
