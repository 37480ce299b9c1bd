import { join, relative } from 'node:path';
import ts from 'typescript';
import type { ApiEntryPoint } from './api-entry-points';

/** One public export that has no TSDoc comment on its declaration. */
export interface UndocumentedExport {
  /** The import specifier it is exported from (`@troupe/core/cli-turn`). */
  specifier: string;
  /** The exported name. */
  name: string;
  /** Where it is declared (`packages/core/src/x.ts:12`), relative to the repository root: where the comment goes. */
  declaredAt: string;
}

/** The compiler options of the repository's root tsconfig, so entry files resolve workspace imports from source. */
function rootCompilerOptions(root: string): ts.CompilerOptions {
  const configPath = join(root, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root, undefined, configPath);
  return { ...parsed.options, noEmit: true };
}

/**
 * Whether a declaration has TSDoc text. A comment made only of tags, or an empty one, does not count, except a
 * `@deprecated` tag with text: for an alias kept for old imports, naming the replacement is the documentation.
 */
function hasDocumentation(symbol: ts.Symbol, checker: ts.TypeChecker): boolean {
  if (ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim() !== '') return true;
  const deprecated = symbol.getJsDocTags(checker).find((tag) => tag.name === 'deprecated');
  if (deprecated !== undefined && ts.displayPartsToString(deprecated.text).trim() !== '') return true;
  // A module re-exported as a namespace (`export * as x from`) is documented by its file's leading comment.
  return (symbol.declarations ?? []).some(
    (declaration) => ts.isSourceFile(declaration) && /^\s*\/\*\*[\s\S]*?\*\//.test(declaration.text),
  );
}

/** Whether a declaration is marked `@internal`: `stripInternal` removes it from the published types. */
function isInternal(symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).some((declaration) => ts.getJSDocTags(declaration).some((tag) => tag.tagName.text === 'internal'));
}

/**
 * Every export of the given entry points that has no TSDoc comment. A re-exported name counts as documented when
 * the declaration it leads to is. The TypeScript compiler answers this in seconds, so the check can run as a test;
 * the reference itself (TypeDoc) shows the same comments.
 */
export function findUndocumentedExports(root: string, entries: ApiEntryPoint[]): UndocumentedExport[] {
  const program = ts.createProgram({ rootNames: entries.map((entry) => join(root, entry.file)), options: rootCompilerOptions(root) });
  const checker = program.getTypeChecker();
  const undocumented: UndocumentedExport[] = [];
  for (const entry of entries) {
    const sourceFile = program.getSourceFile(join(root, entry.file));
    if (sourceFile === undefined) throw new Error(`${entry.specifier}: ${entry.file} is not found`);
    const moduleSymbol = checker.getSymbolAtLocation(sourceFile);
    if (moduleSymbol === undefined) throw new Error(`${entry.specifier}: ${entry.file} is not a module`);
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (isInternal(target) || hasDocumentation(target, checker) || hasDocumentation(exported, checker)) continue;
      const declaration = target.declarations?.[0] ?? exported.declarations?.[0];
      const file = declaration?.getSourceFile();
      const line = declaration && file ? file.getLineAndCharacterOfPosition(declaration.getStart()).line + 1 : 0;
      undocumented.push({
        specifier: entry.specifier,
        name: exported.name,
        declaredAt: file ? `${relative(root, file.fileName)}:${line}` : '(no declaration)',
      });
    }
  }
  return undocumented;
}

/** The undocumented exports as lines, one declaration once (a name exported from two doors is listed once). */
export function formatUndocumented(undocumented: UndocumentedExport[]): string[] {
  const byPlace = new Map<string, UndocumentedExport[]>();
  for (const item of undocumented) byPlace.set(`${item.declaredAt} ${item.name}`, [...(byPlace.get(`${item.declaredAt} ${item.name}`) ?? []), item]);
  return [...byPlace.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, items]) => `${items[0]!.declaredAt}: ${items[0]!.name} (exported from ${items.map((item) => item.specifier).join(', ')})`);
}
