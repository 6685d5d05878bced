import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Inspected, restrictedSettings, SettingsSource, toolSettings } from '../src/tools/settings';

/** Settings as VS Code would hold them: each key's values by scope; get() the workspace folder's over the workspace's over the user's. */
function source(values: Record<string, Inspected<unknown>>): SettingsSource {
  return {
    inspect: <T>(section: string, key: string) => values[`${section}.${key}`] as Inspected<T> | undefined,
    get: <T>(section: string, key: string) => {
      const i = values[`${section}.${key}`];
      return (i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue ?? i?.defaultValue) as T | undefined;
    },
  };
}

test('Restricted Mode: the tool settings come from the user and the machine, never the workspace', () => {
  const values: Record<string, Inspected<unknown>> = {
    'interleave.path': { defaultValue: '', globalValue: '/home/me/go/bin/interleave', workspaceValue: '/repo/evil' },
    'interleave.goroot': { defaultValue: '', workspaceFolderValue: '/repo/goroot' },
    'go.goroot': { workspaceValue: '/repo/goroot2' },
    'go.alternateTools': { defaultValue: {}, workspaceValue: { go: '/repo/go' } },
  };
  assert.deepEqual(toolSettings(false, source(values)), { path: '/home/me/go/bin/interleave', goroot: '', alternateGo: '' });
  // Trusted: the workspace's values count, as VS Code gives them.
  assert.deepEqual(toolSettings(true, source(values)), { path: '/repo/evil', goroot: '/repo/goroot', alternateGo: '/repo/go' });
  // Restricted Mode with the user's values: those.
  const user: Record<string, Inspected<unknown>> = {
    'interleave.goroot': { globalValue: '/sdk/go', workspaceValue: '/repo/goroot' },
    'go.alternateTools': { globalValue: { go: 'go1.26' }, workspaceValue: { go: '/repo/go' } },
  };
  assert.deepEqual(toolSettings(false, source(user)), { path: '', goroot: '/sdk/go', alternateGo: 'go1.26' });
  // go.goroot when interleave.goroot is not set; values of another type are unset.
  assert.deepEqual(toolSettings(false, source({ 'go.goroot': { globalValue: '/usr/lib/go', workspaceValue: '/repo' }, 'interleave.path': { globalValue: 7 } })),
    { path: '', goroot: '/usr/lib/go', alternateGo: '' });
});

test('package.json declares Restricted Mode support, with every setting that names a program restricted', () => {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
    capabilities?: { untrustedWorkspaces?: { supported?: unknown; description?: unknown; restrictedConfigurations?: unknown } };
    contributes: { configuration: { properties: Record<string, { type?: string; scope?: string; description?: string }> } };
  };
  const u = pkg.capabilities?.untrustedWorkspaces;
  assert.equal(u?.supported, 'limited');
  assert.equal(typeof u?.description, 'string');
  const restricted = u?.restrictedConfigurations as string[];
  assert.deepEqual([...restricted].sort(), [...restrictedSettings].sort());
  // A setting that names a path, a program, flags or an environment, or that a machine may
  // override, is restricted.
  for (const [key, p] of Object.entries(pkg.contributes.configuration.properties)) {
    const names = /path|root|bin|tool|flag|env|command|exec/i.test(key) || /path|binary|program|flag|environment/i.test(p.description ?? '');
    if (names || p.scope === 'machine-overridable') {
      assert.ok(restricted.includes(key), `${key} names a program or a path but is not in restrictedConfigurations`);
    }
  }
});
