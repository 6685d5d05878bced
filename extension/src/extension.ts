// Activation: wires the extension's features together. Each lives in its own module: tools/
// (finding interleave and go), language/ (the language client), debug/ (the adapter, launch
// configurations, the status bar), testing/ (the Testing view), schedules/ (the Schedules
// view), timeline/ (the schedule timeline).

import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { exploreInDebugger, registerCommands } from './commands';
import { ConfigurationProvider } from './debug/configuration';
import { AdapterFactory } from './debug/factory';
import { ExplorationStatus } from './debug/status';
import { startLanguageClient } from './language/client';
import { schedulePathOf, SchedulesView } from './schedules/view';
import { TestingController } from './testing/controller';
import { TimelinePanel } from './timeline/panel';
import { missingInterleaveMessage } from './tools/lookup';
import { checkVersion, currentToolSettings, isRemote, resolveTools, setExtensionDir } from './tools/tools';

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const version = (context.extension.packageJSON as { version: string }).version;
  const output = vscode.window.createOutputChannel('Interleave', { log: true });
  context.subscriptions.push(output);
  setExtensionDir(context.extensionPath);

  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory('interleave', new AdapterFactory()),
    vscode.debug.registerDebugConfigurationProvider('interleave', new ConfigurationProvider()),
    vscode.debug.registerDebugConfigurationProvider('interleave', new ConfigurationProvider(), vscode.DebugConfigurationProviderTriggerKind.Dynamic),
  );
  const status = new ExplorationStatus();
  context.subscriptions.push(status, vscode.debug.registerDebugAdapterTrackerFactory('interleave', status));
  context.subscriptions.push(vscode.commands.registerCommand('interleave.cancelExploration', () => status.cancel()));

  const schedules = new SchedulesView();
  const schedulesTree = vscode.window.createTreeView('interleave.schedules', { treeDataProvider: schedules });
  context.subscriptions.push(schedules, schedulesTree);
  context.subscriptions.push(vscode.commands.registerCommand('interleave.refreshSchedules', () => schedules.refresh()));
  const timeline = new TimelinePanel(context.extensionUri);
  context.subscriptions.push(timeline);
  registerCommands(context, () => schedules.refresh(), timeline, (p, v) => schedules.mark(p, v),
    () => (schedulesTree.visible ? schedulePathOf(schedulesTree.selection[0]) : undefined));
  context.subscriptions.push(new TestingController((pkgDir, test) => exploreInDebugger(pkgDir, test), output));

  const startClient = async (): Promise<void> => {
    const tools = resolveTools();
    const trust = vscode.workspace.isTrusted ? '' : '; Restricted Mode: settings from user and machine only, no test runs';
    output.info(`interleave: ${tools.interleave ?? 'not found'} (${tools.located.source === 'setting' ? `interleave.path ${JSON.stringify(currentToolSettings().path)}` : tools.located.source === 'bundled' ? 'bundled with the extension' : 'PATH'}); go: ${tools.go ?? 'not found'}${trust}`);
    if (tools.interleave === undefined) {
      output.warn(`no language server: ${missingInterleaveMessage(tools.located, isRemote())}`);
      return;
    }
    checkVersion(tools, version, output);
    try {
      client = await startLanguageClient(tools, output);
    } catch (err) {
      void vscode.window.showErrorMessage(`Interleave: the language server did not start: ${String(err)}`);
    }
  };
  context.subscriptions.push(vscode.commands.registerCommand('interleave.restartServer', async () => {
    await client?.stop();
    client = undefined;
    await startClient();
  }));
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration(async (e) => {
    if (e.affectsConfiguration('interleave.path') || e.affectsConfiguration('interleave.goroot')) {
      await vscode.commands.executeCommand('interleave.restartServer');
    }
  }));
  // Trust granted: the workspace's settings now count, which may name another binary.
  context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(async () => {
    await vscode.commands.executeCommand('interleave.restartServer');
  }));
  await startClient();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
