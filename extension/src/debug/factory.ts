// The debug adapter: interleave dap on stdin and stdout, in the environment that has Go. A
// missing tool fails the session at once with what was looked for and how to fix it: the
// factory never waits on the user, so no session is left waiting for an answer.

import * as vscode from 'vscode';
import { toolsOrError } from '../tools/tools';

export class AdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  createDebugAdapterDescriptor(): vscode.DebugAdapterDescriptor {
    const r = toolsOrError();
    if (r.error !== undefined) {
      throw new Error(r.error);
    }
    const bin = r.tools.interleave;
    if (bin === undefined) {
      throw new Error('Interleave: the interleave binary was not found (see the interleave.path setting)');
    }
    return new vscode.DebugAdapterExecutable(bin, ['dap'], { env: envRecord(r.tools.env) });
  }
}

/** The environment as DebugAdapterExecutableOptions wants it (no undefined values). */
export function envRecord(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined) {
      out[k] = v;
    }
  }
  return out;
}
