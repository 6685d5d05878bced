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

/** Where the interleave binary is: the setting, then PATH, GOBIN and GOPATH/bin; undefined if nowhere. */
export function findInterleave(setting: string, host: Host): string | undefined {
  if (setting !== '') {
    const p = setting.startsWith('~') ? path.join(host.homedir, setting.slice(1)) : setting;
    return host.isExecutable(p) ? p : undefined;
  }
  const name = exe('interleave', host.platform);
  for (const dir of [...pathDirs(host.env, host.platform), ...goBinDirs(host)]) {
    const p = path.join(dir, name);
    if (host.isExecutable(p)) {
      return p;
    }
  }
  return undefined;
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

/** The go install command line that installs the interleave binary of this extension's version. */
export function installArgs(version: string): string[] {
  return ['install', `github.com/interleave-dev/interleave/cmd/interleave@v${version}`];
}
