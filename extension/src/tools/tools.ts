// The tools as the editor finds them: settings (settings.ts: in Restricted Mode only the user's
// and the machine's) and the machine read through lookup.ts, and the offer to install the
// interleave binary when it is missing. Nothing that runs the workspace's code (exploring,
// replaying, minimizing, installing) runs in Restricted Mode: requireTools says so instead.

import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import { findGo, findInterleave, Host, installArgs, toolEnv } from './lookup';
import { toolSettings, ToolSettings } from './settings';

/** The tools the extension runs, and the environment to run them in. */
export interface Tools {
  interleave: string | undefined;
  go: string | undefined;
  env: NodeJS.ProcessEnv;
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
  const interleave = findInterleave(s.path, { ...host, env });
  return { interleave, go, env };
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
 * The tools to run the workspace's tests with, with the interleave binary installed first if
 * the user agrees; undefined when there is none to run or the workspace is not trusted (the
 * user was told why).
 */
export async function requireTools(version: string): Promise<Tools | undefined> {
  if (!requireTrust()) {
    return undefined;
  }
  const tools = resolveTools();
  if (tools.interleave !== undefined) {
    return tools;
  }
  if (tools.go === undefined) {
    void vscode.window.showErrorMessage('Interleave: neither the interleave binary nor the go command was found. Set interleave.path, or install Go and set interleave.goroot.');
    return undefined;
  }
  const install = 'Install';
  const choice = await vscode.window.showWarningMessage(
    `Interleave: the interleave binary was not found (interleave.path, PATH, GOBIN, GOPATH/bin). Install it with go ${installArgs(version).join(' ')}?`, install);
  if (choice !== install) {
    return undefined;
  }
  const go = tools.go;
  const ok = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Installing interleave', cancellable: true }, (progress, token) =>
    new Promise<boolean>((resolve) => {
      progress.report({ message: `go ${installArgs(version).join(' ')}` });
      const child = cp.execFile(go, installArgs(version), { env: tools.env }, (err, _stdout, stderr) => {
        if (err !== null) {
          void vscode.window.showErrorMessage(`Interleave: go install failed: ${stderr.trim() || err.message}`);
          resolve(false);
          return;
        }
        resolve(true);
      });
      token.onCancellationRequested(() => child.kill());
    }));
  return ok ? resolveTools() : undefined;
}
