// npm run publish: publishes the .vsix files npm run package built in extension/dist/ to the
// VS Code Marketplace (vsce, token VSCE_PAT) and to Open VSX (ovsx, token OVSX_PAT), where
// code-server, VSCodium and Gitpod install from. The tokens come from the environment only;
// a registry whose token is not set is skipped, and nothing is published when neither is.
// Not run in CI.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { targets, vsixName } from './targets.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = path.join(repo, 'extension', 'dist');
const bin = (name) => path.join(repo, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
const files = [...targets.map((t) => vsixName(t.target)), vsixName(undefined)].map((f) => path.join(dist, f));
const missing = files.filter((f) => !fs.existsSync(f));
if (missing.length > 0) {
  console.error(`publish: missing ${missing.join(', ')}: run npm run package first`);
  process.exit(1);
}
const registries = [
  { name: 'the VS Code Marketplace', token: 'VSCE_PAT', tool: 'vsce' },
  { name: 'Open VSX', token: 'OVSX_PAT', tool: 'ovsx' },
].filter((r) => {
  if (!process.env[r.token]) {
    console.error(`publish: ${r.token} is not set: not publishing to ${r.name}`);
    return false;
  }
  return true;
});
if (registries.length === 0) {
  console.error('publish: set VSCE_PAT (Marketplace) and/or OVSX_PAT (Open VSX)');
  process.exit(1);
}
for (const r of registries) {
  for (const f of files) {
    console.log(`publish ${path.basename(f)} to ${r.name}`);
    // The token goes through the environment (VSCE_PAT, OVSX_PAT), which both tools read, never on a command line.
    execFileSync(bin(r.tool), ['publish', '--packagePath', f], { cwd: repo, stdio: 'inherit' });
  }
}
