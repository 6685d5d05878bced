// The language client: interleave lsp for the Go files of every workspace folder, with its
// diagnostics, hovers, code lenses and code actions (vscode-languageclient does the protocol).

import * as vscode from 'vscode';
import { CloseAction, ErrorAction, LanguageClient, LanguageClientOptions, ServerOptions, Trace } from 'vscode-languageclient/node';
import { requireTrust, Tools } from '../tools/tools';

/** Starts the client; the returned one is stopped on deactivation. */
export async function startLanguageClient(tools: Tools, output: vscode.LogOutputChannel): Promise<LanguageClient | undefined> {
  if (tools.interleave === undefined) {
    return undefined;
  }
  const run = { command: tools.interleave, args: ['lsp'], options: { env: tools.env } };
  const serverOptions: ServerOptions = { run, debug: run };
  let restarts = 0;
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'go' }],
    outputChannel: output,
    // The hovers show what the results store holds, which a repository can craft: their
    // Markdown is never trusted (its command: links do not run; the code actions offer the
    // same commands) and its HTML is not rendered. The server escapes it too.
    markdown: { isTrusted: false, supportHtml: false },
    middleware: {
      // The server's commands (interleave.runTest) build and run the workspace's tests: not in
      // Restricted Mode. The server itself only reads the store and the sources.
      executeCommand: async (command, args, next) => {
        if (!requireTrust()) {
          return undefined;
        }
        return next(command, args);
      },
    },
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/.interleave/**/*.json') },
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue }),
      closed: () => {
        restarts++;
        if (restarts > 4) {
          void vscode.window.showErrorMessage('Interleave: the language server crashed 5 times; it is not restarted. See the Interleave output, then run "Interleave: Restart Language Server".');
          return { action: CloseAction.DoNotRestart };
        }
        void vscode.window.showWarningMessage('Interleave: the language server stopped; restarting it.');
        return { action: CloseAction.Restart };
      },
    },
  };
  const client = new LanguageClient('interleave', 'Interleave', serverOptions, clientOptions);
  await client.start();
  await client.setTrace(traceSetting());
  return client;
}

/** interleave.trace.server as the client's trace level. */
export function traceSetting(): Trace {
  switch (vscode.workspace.getConfiguration('interleave').get<string>('trace.server')) {
    case 'messages':
      return Trace.Messages;
    case 'verbose':
      return Trace.Verbose;
    default:
      return Trace.Off;
  }
}
