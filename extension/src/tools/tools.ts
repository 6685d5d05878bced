// The tools as the editor finds them: settings and the machine read through lookup.ts, and the
// offer to install the interleave binary when it is missing.

import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import { findGo, findInterleave, Host, installArgs, toolEnv } from './lookup';

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

/** Finds the tools now (settings may change between calls). */
export function resolveTools(): Tools {
  const host = machine();
  const cfg = vscode.workspace.getConfiguration('interleave');
  const goCfg = vscode.workspace.getConfiguration('go');
  const alternate = goCfg.get<Record<string, string>>('alternateTools') ?? {};
  const go = findGo({ goroot: cfg.get<string>('goroot') || goCfg.get<string>('goroot') || '', alternateGo: alternate.go ?? '' }, host);
  const env = toolEnv(go, host);
  const interleave = findInterleave(cfg.get<string>('path') ?? '', { ...host, env });
  return { interleave, go, env };
}

/**
 * The tools, with the interleave binary installed first if the user agrees; undefined when
 * there is none to run (the user was told why).
 */
export async function requireTools(version: string): Promise<Tools | undefined> {
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
