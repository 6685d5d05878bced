// Finding the tools the extension runs: the interleave binary and the go command. The logic
// takes its inputs (settings, environment, a file-existence check) as arguments, so that it is
// tested without an editor (test/lookup.test.ts).

import * as path from 'node:path';

/** What the lookup reads from the machine. */
export interface Host {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  homedir: string;
  /** isExecutable reports whether a regular, executable file is at p. */
  isExecutable(p: string): boolean;
}

function exe(name: string, platform: NodeJS.Platform): string {
  return platform === 'win32' ? name + '.exe' : name;
}

function pathDirs(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string[] {
  const p = env.PATH ?? env.Path ?? '';
  return p.split(platform === 'win32' ? ';' : ':').filter((d) => d !== '');
}

/** The directories go install writes to: GOBIN, else each GOPATH entry's bin, else ~/go/bin. */
export function goBinDirs(host: Host): string[] {
  const { env, platform, homedir } = host;
  if (env.GOBIN) {
    return [env.GOBIN];
  }
  const gopath = env.GOPATH ? env.GOPATH.split(platform === 'win32' ? ';' : ':') : [path.join(homedir, 'go')];
  return gopath.filter((d) => d !== '').map((d) => path.join(d, 'bin'));
}

/** Where the interleave binary came from: the setting, the extension's own, or PATH and Go's bin directories. */
export type Source = 'setting' | 'bundled' | 'path';

/** The interleave binary found, or where it was looked for. */
export interface Located {
  /** The binary; undefined when none was found. */
  path?: string;
  /** Where it was found, or (not found) the first place that should have had it. */
  source: Source;
  /** The places looked in, in order. */
  looked: string[];
}

/** Where a platform-specific .vsix holds its interleave binary, under the extension's directory. */
export function bundledPath(extensionDir: string, platform: NodeJS.Platform): string {
  return path.join(extensionDir, 'extension', 'bin', exe('interleave', platform));
}

/**
 * Where the interleave binary is: interleave.path when set (and only there: a wrong setting is
 * an error, not a reason to run another binary), else the one bundled with the extension (the
 * platform-specific .vsix), else PATH, GOBIN and GOPATH/bin (the universal .vsix).
 */
export function locateInterleave(setting: string, bundled: string | undefined, host: Host): Located {
  if (setting !== '') {
    const p = setting.startsWith('~') ? path.join(host.homedir, setting.slice(1)) : setting;
    return { path: host.isExecutable(p) ? p : undefined, source: 'setting', looked: [p] };
  }
  const looked: string[] = [];
  if (bundled !== undefined) {
    looked.push(bundled);
    if (host.isExecutable(bundled)) {
      return { path: bundled, source: 'bundled', looked };
    }
  }
  const name = exe('interleave', host.platform);
  for (const dir of [...pathDirs(host.env, host.platform), ...goBinDirs(host)]) {
    const p = path.join(dir, name);
    looked.push(p);
    if (host.isExecutable(p)) {
      return { path: p, source: 'path', looked };
    }
  }
  return { source: bundled !== undefined ? 'bundled' : 'path', looked };
}

/** Where the interleave binary is (locateInterleave), undefined if nowhere. */
export function findInterleave(setting: string, host: Host, bundled?: string): string | undefined {
  return locateInterleave(setting, bundled, host).path;
}

/** Where settings that apply to the machine live in a remote window or code-server. */
export const machineSettingsHint = 'In code-server or a remote window (SSH, WSL, containers) interleave.path and interleave.goroot are machine settings: User settings do not apply there. Set them in the Remote settings (command "Preferences: Open Remote Settings"; code-server keeps them in ~/.local/share/code-server/Machine/settings.json, VS Code Server in ~/.vscode-server/data/Machine/settings.json).';

/**
 * Why the interleave binary was not found, what was looked for, and how to fix it. remote:
 * the window is remote or code-server, where User settings do not set interleave.path.
 */
export function missingInterleaveMessage(l: Located, remote: boolean): string {
  let msg: string;
  if (l.source === 'setting') {
    msg = `interleave.path is ${JSON.stringify(l.looked[0])}, which is not an executable file. Correct the setting, or clear it to use the interleave binary that comes with the extension.`;
  } else {
    const where = l.looked.length > 0 ? ` (looked in: ${l.looked.join(', ')})` : '';
    const bundled = l.source === 'bundled' ? 'is not in this extension (a .vsix without one, for other platforms) and ' : '';
    msg = `the interleave binary ${bundled}was not found on PATH, in GOBIN or in GOPATH/bin${where}. Install the Interleave .vsix for your platform (linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64), which carries the binary, or build it from a checkout of the repository (go build ./cmd/interleave) and set interleave.path to it.`;
  }
  return remote ? `${msg} ${machineSettingsHint}` : msg;
}

/** Why the go command was not found and how to fix it. */
export function missingGoMessage(host: Host, remote: boolean): string {
  const msg = `the go command was not found (looked in: go.alternateTools, interleave.goroot, go.goroot, GOROOT, PATH, ${usualGoRoots(host).join(', ')}). Interleave builds your tests with Go 1.26 or later: install it, or set interleave.goroot to its GOROOT.`;
  return remote ? `${msg} ${machineSettingsHint}` : msg;
}

/** What interleave version says: "interleave version 0.1.0 commit 31538d6 go1.26.8 linux/amd64". */
export interface BinaryVersion {
  version: string;
  commit: string;
}

/** Reads interleave version's output; undefined if it is not that line (an older binary). */
export function parseVersion(out: string): BinaryVersion | undefined {
  const m = /^interleave version (\S+) commit (\S+)/m.exec(out);
  return m === null ? undefined : { version: m[1], commit: m[2] };
}

/**
 * The warning when the binary at bin is not of the extension's version, naming both;
 * undefined when they agree. v undefined: the binary did not say its version.
 */
export function versionWarning(bin: string, v: BinaryVersion | undefined, extensionVersion: string): string | undefined {
  if (v === undefined) {
    return `${bin} does not say its version (interleave version failed): it is older than this extension (${extensionVersion}). Use the interleave binary that comes with the extension (clear interleave.path), or one built from the same version.`;
  }
  if (v.version === extensionVersion) {
    return undefined;
  }
  return `${bin} is interleave ${v.version} (commit ${v.commit}), but this extension is ${extensionVersion}: the two may not understand each other. Use the interleave binary that comes with the extension (clear interleave.path), or one built from the same version.`;
}

/** The settings that say where Go is, as vscode-go reads them. */
export interface GoSettings {
  /** interleave.goroot, then go.goroot. */
  goroot: string;
  /** go.alternateTools.go: a go binary (or a name on PATH). */
  alternateGo: string;
}

/** The usual places Go is installed in, by platform. */
export function usualGoRoots(host: Host): string[] {
  switch (host.platform) {
    case 'win32':
      return ['C:\\Program Files\\Go', 'C:\\Go', path.join(host.homedir, 'sdk', 'go')];
    case 'darwin':
      return ['/usr/local/go', '/opt/homebrew/opt/go/libexec', '/usr/local/opt/go/libexec', path.join(host.homedir, 'sdk', 'go')];
    default:
      return ['/usr/local/go', '/usr/lib/go', '/snap/go/current', path.join(host.homedir, 'sdk', 'go'), path.join(host.homedir, 'go', 'go')];
  }
}

/**
 * The go command: the settings first (goroot, alternate tool), then GOROOT, then PATH, then
 * the usual install places — an editor started from a desktop or a code-server login shell
 * often lacks Go's directory on PATH.
 */
export function findGo(settings: GoSettings, host: Host): string | undefined {
  const name = exe('go', host.platform);
  const candidates: string[] = [];
  if (settings.alternateGo !== '') {
    if (path.isAbsolute(settings.alternateGo)) {
      candidates.push(settings.alternateGo);
    } else {
      candidates.push(...pathDirs(host.env, host.platform).map((d) => path.join(d, settings.alternateGo)));
    }
  }
  if (settings.goroot !== '') {
    candidates.push(path.join(settings.goroot, 'bin', name));
  }
  if (host.env.GOROOT) {
    candidates.push(path.join(host.env.GOROOT, 'bin', name));
  }
  candidates.push(...pathDirs(host.env, host.platform).map((d) => path.join(d, name)));
  candidates.push(...usualGoRoots(host).map((r) => path.join(r, 'bin', name)));
  return candidates.find((c) => host.isExecutable(c));
}

/**
 * The environment the adapter, the language server and the tests they run get: the
 * editor's, with the go command's directory first on PATH, so that builds find the same Go.
 */
export function toolEnv(goBinary: string | undefined, host: Host): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...host.env };
  if (goBinary !== undefined) {
    const dir = path.dirname(goBinary);
    const sep = host.platform === 'win32' ? ';' : ':';
    const dirs = pathDirs(host.env, host.platform).filter((d) => d !== dir);
    env.PATH = [dir, ...dirs].join(sep);
  }
  return env;
}
