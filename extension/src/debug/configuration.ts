// launch.json: the initial configurations, and the defaults a configuration gets when it is
// started (F5 on a test file with no launch.json explores the file's package).

import * as path from 'node:path';
import * as vscode from 'vscode';

export class ConfigurationProvider implements vscode.DebugConfigurationProvider {
  provideDebugConfigurations(): vscode.DebugConfiguration[] {
    return [
      { type: 'interleave', request: 'launch', name: 'Explore interleavings', mode: 'explore', program: '${fileDirname}' },
      { type: 'interleave', request: 'launch', name: 'Replay a schedule', mode: 'replay', scheduleFile: '${command:interleave.pickSchedule}', stopOnEntry: true },
    ];
  }

  resolveDebugConfiguration(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration | undefined {
    if (!config.type && !config.request && !config.name) {
      // F5 without a launch.json: explore the package of the Go file in the editor.
      const doc = vscode.window.activeTextEditor?.document;
      if (doc === undefined || doc.languageId !== 'go') {
        void vscode.window.showInformationMessage('Interleave: open a Go test file to explore its package, or add a launch configuration.');
        return undefined;
      }
      config.type = 'interleave';
      config.request = 'launch';
      config.name = 'Explore interleavings';
      config.mode = 'explore';
      config.program = path.dirname(doc.uri.fsPath);
    }
    config.mode ??= 'explore';
    if (config.cwd === undefined && folder !== undefined) {
      config.cwd = folder.uri.fsPath;
    }
    return config;
  }
}
