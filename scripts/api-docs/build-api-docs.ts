import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Application, Converter, ReflectionKind, type Context, type DeclarationReflection } from 'typedoc';
import { remoteLoads } from './api-docs-offline';
import { apiEntryPoints } from './api-entry-points';

// `pnpm docs:build`: the API reference of every published package, from the TSDoc of its public exports, into
// `docs/api/` (not committed). One module per import specifier (`@troupe/core/cli-turn`), the guides of
// `docs/guides/` beside them, and nothing the pages load from the network, so it reads offline.

const root = fileURLToPath(new URL('../..', import.meta.url));
const out = join(root, 'docs', 'api');
const entries = apiEntryPoints(root);
const specifierOf = new Map(entries.map((entry) => [resolve(root, entry.file), entry.specifier]));

const app = await Application.bootstrapWithPlugins({
  entryPoints: entries.map((entry) => join(root, entry.file)),
  tsconfig: join(root, 'tsconfig.json'),
  out,
  name: 'Troupe API reference',
  readme: join(root, 'docs', 'api-reference.md'),
  projectDocuments: [join(root, 'docs', 'guides', '*.md')],
  // Source links would point at GitHub; the reference must read offline and names each declaration's file anyway.
  disableSources: true,
  excludeExternals: true,
  excludePrivate: true,
  excludeInternal: true,
  hideGenerator: true,
  highlightLanguages: ['bash', 'sh', 'json', 'jsonc', 'toml', 'ts', 'typescript', 'js', 'javascript', 'yaml', 'diff', 'text'],
  // Type errors are the typecheck's job (`pnpm typecheck`); here they would only slow the build down.
  skipErrorChecking: true,
  treatWarningsAsErrors: true,
});

// TypeDoc names a module by its path (`core/src/cli-turn`); users import `@troupe/core/cli-turn`.
app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context: Context, reflection: DeclarationReflection) => {
  if (!reflection.kindOf(ReflectionKind.Module)) return;
  const file = context.getSymbolFromReflection(reflection)?.declarations?.[0]?.getSourceFile().fileName;
  const specifier = file === undefined ? undefined : specifierOf.get(resolve(file));
  if (specifier === undefined) throw new Error(`API reference: module ${reflection.name} (${file ?? 'no file'}) is not an entry point of a published package`);
  reflection.name = specifier;
});

const project = await app.convert();
if (project === undefined || app.logger.hasErrors()) {
  process.stderr.write('API reference: the conversion failed (see above).\n');
  process.exit(1);
}
await app.generateDocs(project, out);
if (app.logger.hasErrors() || app.logger.hasWarnings()) process.exit(1);

const remote = remoteLoads(out, root);
if (remote.length > 0) {
  process.stderr.write(`API reference: pages load from the network, so it would not read offline:\n${remote.join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`API reference of ${entries.length} entry points: ${relative(process.cwd(), join(out, 'index.html'))}\n`);
