// The debug adapter: interleave dap on stdin and stdout, in the environment that has Go.

import * as vscode from 'vscode';
import { requireTools, restrictedMessage } from '../tools/tools';

export class AdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  constructor(private readonly version: string) {}

  async createDebugAdapterDescriptor(): Promise<vscode.DebugAdapterDescriptor | undefined> {
    const tools = await requireTools(this.version);
    if (tools === undefined || tools.interleave === undefined) {
      throw new Error(vscode.workspace.isTrusted ? 'the interleave binary was not found (see the interleave.path setting)' : restrictedMessage);
    }
    return new vscode.DebugAdapterExecutable(tools.interleave, ['dap'], { env: envRecord(tools.env) });
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
