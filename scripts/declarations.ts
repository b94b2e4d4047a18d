// A package's declarations: emitted by tsc from its entry module (what is marked @internal left out), and each file it
// ships rewritten to import only what the package holds or depends on (docs/packages.md).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface PackageDeclarations {
  /** Who builds them, named in errors (`build-conformance`). */
  label: string;
  root: string;
  entry: string;
  /** Where tsc writes before the files are rewritten. */
  scratch: string;
  /** Each file tsc emits that the package ships (relative to `root`), and the path it ships at. */
  files: readonly (readonly [string, string])[];
  /** What each module the declarations import is in the package: one of its files, or a package it depends on. */
  specifiers: Record<string, string>;
  /** Whether an import of a package by name stays as it is; when false, it is refused like a module not shipped. */
  packages: boolean;
}

/**
 * Emits and writes the declarations; throws on a type error, a file tsc did not emit, or an import of what the
 * package does not have. A side-effect import of a module of ours (`import './supported-node.ts';`) runs code and
 * declares nothing: the bundle runs it, and the declarations leave it out (TypeScript 7 checks the module is there).
 */
export function writePackageDeclarations(setting: PackageDeclarations): void {
  const options: ts.CompilerOptions = {
    declaration: true,
    emitDeclarationOnly: true,
    stripInternal: true,
    strict: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
    types: ['node'],
    rootDir: setting.root,
    outDir: setting.scratch,
  };
  const written = new Map<string, string>();
  const program = ts.createProgram([setting.entry], options);
  const result = program.emit(undefined, (file, text) => written.set(path.relative(setting.scratch, file), text));
  const errors = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (errors.length > 0) throw new Error(`${setting.label}: declarations:\n${ts.formatDiagnosticsWithColorAndContext(errors, ts.createCompilerHost(options))}`);
  const rewrite = (from: string, text: string) =>
    text
      .replace(/^import '\.[^']*';\n/gm, '')
      .replace(/(from |import\()'([^']+)'/g, (whole, keyword: string, specifier: string) => {
        if (specifier in setting.specifiers) return `${keyword}'${setting.specifiers[specifier]}'`;
        if (setting.packages && !specifier.startsWith('.')) return whole;
        throw new Error(`${setting.label}: ${from} imports ${specifier}, which the package does not have`);
      });
  for (const [from, to] of setting.files) {
    const text = written.get(from);
    if (text === undefined) throw new Error(`${setting.label}: tsc emitted no ${from}`);
    writeFileSync(to, rewrite(from, text));
  }
}
