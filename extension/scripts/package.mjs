// npm run package: one .vsix per platform in extension/dist/, each carrying the interleave
// binary cross-compiled for it (CGO_ENABLED=0, -trimpath, stripped with -s -w, the version of
// package.json and the commit stamped into cmd/interleave/internal/version), and a universal
// .vsix without a binary for the other platforms (the extension then looks on PATH). vsce
// runs vscode:prepublish (the esbuild bundle) for each.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { binPath, targets, vsixName } from './targets.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { version } = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
const vsce = path.join(repo, 'node_modules', '.bin', process.platform === 'win32' ? 'vsce.cmd' : 'vsce');
const bin = path.join(repo, 'extension', 'bin');
const dist = path.join(repo, 'extension', 'dist');

function commit() {
  try {
    const rev = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: repo, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${rev}-dirty` : rev;
  } catch {
    return 'unknown';
  }
}

function run(cmd, args, env) {
  console.log(`$ ${cmd} ${args.join(' ')}`);
  execFileSync(cmd, args, { cwd: repo, stdio: 'inherit', env: { ...process.env, ...env } });
}

const only = process.argv.slice(2); // npm run package -- linux-x64: that target only
const pkg = 'github.com/interleave-dev/interleave/cmd/interleave/internal/version';
const ldflags = `-s -w -X ${pkg}.Version=${version} -X ${pkg}.Commit=${commit()}`;
fs.mkdirSync(dist, { recursive: true });
for (const t of targets) {
  if (only.length > 0 && !only.includes(t.target)) {
    continue;
  }
  fs.rmSync(bin, { recursive: true, force: true });
  run('go', ['build', '-trimpath', '-ldflags', ldflags, '-o', path.join(repo, binPath(t.exe)), './cmd/interleave'], { GOOS: t.goos, GOARCH: t.goarch, CGO_ENABLED: '0' });
  run(vsce, ['package', '--target', t.target, '--no-dependencies', '-o', path.join(dist, vsixName(t.target))]);
}
fs.rmSync(bin, { recursive: true, force: true });
if (only.length === 0 || only.includes('universal')) {
  run(vsce, ['package', '--no-dependencies', '-o', path.join(dist, vsixName(undefined))]);
}
for (const f of fs.readdirSync(dist).filter((f) => f.endsWith('.vsix')).sort()) {
  console.log(`${f}\t${(fs.statSync(path.join(dist, f)).size / 1e6).toFixed(1)} MB`);
}
