// The tools as the editor finds them: settings (settings.ts: in Restricted Mode only the user's
// and the machine's) and the machine read through lookup.ts — the interleave binary of
// interleave.path, else the one the platform's .vsix carries, else PATH — and the errors that
// say what was looked for when one is missing. Nothing waits on the user: a missing tool is an
// error at once, never a question a debug session waits on. Nothing that runs the
// workspace's code (exploring, replaying, minimizing) runs in Restricted Mode: requireTools
// says so instead.

import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import { bundledPath, findGo, Host, Located, locateInterleave, missingGoMessage, missingInterleaveMessage, parseVersion, toolEnv, versionWarning } from './lookup';
import { toolSettings, ToolSettings } from './settings';

/** The tools the extension runs, and the environment to run them in. */
export interface Tools {
  interleave: string | undefined;
  go: string | undefined;
  env: NodeJS.ProcessEnv;
  /** How interleave was looked for. */
  located: Located;
}

let extensionDir: string | undefined;

/** Records the extension's directory, where a platform's .vsix keeps its interleave binary. */
export function setExtensionDir(dir: string): void {
  extensionDir = dir;
}

function machine(): Host {
  return {
    env: process.env,
    platform: process.platform,
    homedir: os.homedir(),
    isExecutable(p: string): boolean {
      try {
        const st = fs.statSync(p);
        if (!st.isFile()) {
          return false;
        }
        fs.accessSync(p, fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** The settings the tools are found with, as the workspace's trust allows. */
export function currentToolSettings(): ToolSettings {
  return toolSettings(vscode.workspace.isTrusted, {
    inspect: (section, key) => vscode.workspace.getConfiguration(section).inspect(key),
    get: (section, key) => vscode.workspace.getConfiguration(section).get(key),
  });
}

/** Finds the tools now (settings may change between calls). */
export function resolveTools(): Tools {
  const host = machine();
  const s = currentToolSettings();
  const go = findGo({ goroot: s.goroot, alternateGo: s.alternateGo }, host);
  const env = toolEnv(go, host);
  const bundled = extensionDir !== undefined ? bundledPath(extensionDir, host.platform) : undefined;
  const located = locateInterleave(s.path, bundled, { ...host, env });
  return { interleave: located.path, go, env, located };
}

/** Whether User settings do not set machine settings here: a remote window, or code-server (a web UI). */
export function isRemote(): boolean {
  return vscode.env.remoteName !== undefined || vscode.env.uiKind === vscode.UIKind.Web;
}

/**
 * The tools to run the workspace's tests with, or the error that says what is missing, what
 * was looked for and how to fix it. Both interleave and go must be found.
 */
export function toolsOrError(): { tools: Tools; error?: undefined } | { tools?: undefined; error: string } {
  if (!vscode.workspace.isTrusted) {
    return { error: restrictedMessage };
  }
  const tools = resolveTools();
  if (tools.interleave === undefined) {
    return { error: `Interleave: ${missingInterleaveMessage(tools.located, isRemote())}` };
  }
  if (tools.go === undefined) {
    return { error: `Interleave: ${missingGoMessage(machine(), isRemote())}` };
  }
  return { tools };
}

const checked = new Set<string>();

/**
 * Warns (once per binary) when a binary that is not the extension's own — interleave.path,
 * or one found on PATH — is of another version than the extension, naming both.
 */
export function checkVersion(tools: Tools, extensionVersion: string, log: vscode.LogOutputChannel): void {
  const bin = tools.interleave;
  if (bin === undefined || tools.located.source === 'bundled' || checked.has(bin)) {
    return;
  }
  checked.add(bin);
  cp.execFile(bin, ['version'], { env: tools.env, timeout: 10_000 }, (err, stdout) => {
    const v = err === null ? parseVersion(stdout) : undefined;
    log.info(`${bin} version: ${v !== undefined ? `${v.version} commit ${v.commit}` : `unknown (${err?.message ?? stdout.trim()})`}`);
    const warning = versionWarning(bin, v, extensionVersion);
    if (warning !== undefined) {
      void vscode.window.showWarningMessage(`Interleave: ${warning}`);
    }
  });
}

/** What a feature that runs the workspace's tests says in Restricted Mode. */
export const restrictedMessage = 'Interleave builds and runs this workspace\'s tests only when the workspace is trusted (Restricted Mode shows the results store, nothing runs).';

/**
 * Whether the workspace is trusted; if not, the user is told that what they asked runs only in
 * a trusted workspace, with a button to manage its trust.
 */
export function requireTrust(): boolean {
  if (vscode.workspace.isTrusted) {
    return true;
  }
  const manage = 'Manage Workspace Trust';
  void vscode.window.showWarningMessage(`Interleave: ${restrictedMessage}`, manage).then((choice) => {
    if (choice === manage) {
      void vscode.commands.executeCommand('workbench.trust.manage');
    }
  });
  return false;
}

/**
 * The tools to run the workspace's tests with; undefined when one is missing or the workspace
 * is not trusted, and then the user is told why (a notification that nothing waits on).
 */
export function requireTools(): Tools | undefined {
  if (!requireTrust()) {
    return undefined;
  }
  const r = toolsOrError();
  if (r.error !== undefined) {
    showToolError(r.error);
    return undefined;
  }
  return r.tools;
}

/** Shows a missing tool's error with a button to the settings; nothing waits on it. */
export function showToolError(message: string): void {
  const settings = isRemote() ? 'Open Remote Settings' : 'Open Settings';
  void vscode.window.showErrorMessage(message, settings).then((choice) => {
    if (choice === undefined) {
      return;
    }
    if (isRemote()) {
      void vscode.commands.executeCommand('workbench.action.openRemoteSettings', 'interleave.path');
    } else {
      void vscode.commands.executeCommand('workbench.action.openSettings', 'interleave.path');
    }
  });
}
