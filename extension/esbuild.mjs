// Bundles the extension (extension/dist/extension.js, with vscode-languageclient inside and
// the vscode module left to the editor) and the timeline webview's script
// (extension/dist/timeline.js), or with --tests the unit tests to extension/out/test.
import * as esbuild from 'esbuild';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
if (process.argv.includes('--tests')) {
  const tests = readdirSync(join(here, 'test')).filter((f) => f.endsWith('.test.ts')).map((f) => join(here, 'test', f));
  await esbuild.build({
    entryPoints: tests, outdir: join(here, 'out', 'test'), bundle: true, platform: 'node', format: 'cjs',
    target: 'node20', sourcemap: 'inline', logLevel: 'warning',
  });
} else {
  await esbuild.build({
    entryPoints: [join(here, 'src', 'extension.ts')], outfile: join(here, 'dist', 'extension.js'), bundle: true,
    platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'], sourcemap: true, minify: true, logLevel: 'warning',
  });
  // The timeline webview's script (flame-chart-js inside): one file the page loads with a
  // nonce, no eval, no inline code (the webview's content security policy).
  await esbuild.build({
    entryPoints: [join(here, 'src', 'timeline', 'webview', 'main.ts')], outfile: join(here, 'dist', 'timeline.js'), bundle: true,
    platform: 'browser', format: 'iife', target: 'es2022', minify: true, legalComments: 'eof', logLevel: 'warning',
  });
}
