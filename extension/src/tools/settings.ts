// Where the settings that choose a program to run are read from. In a trusted workspace the
// editor's value counts (a workspace folder's over the workspace's over the user's); in an
// untrusted one (Restricted Mode) a repository's .vscode/settings.json must not choose the
// program the extension runs, so only the user's (or the remote machine's) value counts, else
// the default. VS Code applies the same rule to the settings package.json lists in
// capabilities.untrustedWorkspaces.restrictedConfigurations; this is the extension's own
// check, which also covers vscode-go's go.goroot and go.alternateTools when vscode-go is not
// installed to declare them. Pure functions, tested without an editor (test/settings.test.ts).

/** The settings that name a program or a directory of programs the extension runs. */
export const restrictedSettings = ['interleave.path', 'interleave.goroot'] as const;

/** The part of WorkspaceConfiguration.inspect's answer read here. */
export interface Inspected<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

/** How settings are read: vscode.workspace.getConfiguration(section).inspect(key) and .get(key). */
export interface SettingsSource {
  inspect<T>(section: string, key: string): Inspected<T> | undefined;
  get<T>(section: string, key: string): T | undefined;
}

/** The settings the tools are found with (lookup.ts). */
export interface ToolSettings {
  /** interleave.path ("" unset). */
  path: string;
  /** interleave.goroot, else go.goroot ("" unset). */
  goroot: string;
  /** go.alternateTools' go ("" unset). */
  alternateGo: string;
}

/** The user's (or machine's) value of a setting, else its default: what Restricted Mode uses. */
export function userValue<T>(i: Inspected<T> | undefined): T | undefined {
  return i?.globalValue ?? i?.defaultValue;
}

/** The tool settings in a workspace trusted or not. */
export function toolSettings(trusted: boolean, src: SettingsSource): ToolSettings {
  const value = <T>(section: string, key: string): T | undefined => (trusted ? src.get<T>(section, key) : userValue(src.inspect<T>(section, key)));
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const alternate = value<unknown>('go', 'alternateTools');
  return {
    path: str(value('interleave', 'path')),
    goroot: str(value('interleave', 'goroot')) || str(value('go', 'goroot')),
    alternateGo: alternate !== null && typeof alternate === 'object' ? str((alternate as Record<string, unknown>).go) : '',
  };
}
