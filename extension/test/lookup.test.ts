import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { bundledPath, findGo, findInterleave, goBinDirs, Host, locateInterleave, machineSettingsHint, missingInterleaveMessage, parseVersion, toolEnv, versionWarning } from '../src/tools/lookup';

function host(files: string[], env: NodeJS.ProcessEnv = {}): Host {
  const set = new Set(files);
  return { env, platform: 'linux', homedir: '/home/me', isExecutable: (p) => set.has(p) };
}

test('interleave: the setting first, then PATH, GOBIN, GOPATH/bin', () => {
  const cases: { name: string; setting: string; files: string[]; env: NodeJS.ProcessEnv; want: string | undefined }[] = [
    { name: 'setting', setting: '/opt/il', files: ['/opt/il', '/usr/bin/interleave'], env: { PATH: '/usr/bin' }, want: '/opt/il' },
    { name: 'setting missing', setting: '/opt/il', files: ['/usr/bin/interleave'], env: { PATH: '/usr/bin' }, want: undefined },
    { name: 'setting with ~', setting: '~/bin/il', files: ['/home/me/bin/il'], env: {}, want: '/home/me/bin/il' },
    { name: 'PATH', setting: '', files: ['/usr/bin/interleave'], env: { PATH: '/bin:/usr/bin' }, want: '/usr/bin/interleave' },
    { name: 'GOBIN', setting: '', files: ['/gobin/interleave'], env: { PATH: '/bin', GOBIN: '/gobin' }, want: '/gobin/interleave' },
    { name: 'GOPATH', setting: '', files: ['/gp2/bin/interleave'], env: { GOPATH: '/gp1:/gp2' }, want: '/gp2/bin/interleave' },
    { name: 'default GOPATH', setting: '', files: ['/home/me/go/bin/interleave'], env: {}, want: '/home/me/go/bin/interleave' },
    { name: 'nowhere', setting: '', files: [], env: { PATH: '/bin' }, want: undefined },
  ];
  for (const c of cases) {
    assert.equal(findInterleave(c.setting, host(c.files, c.env)), c.want, c.name);
  }
});

test('go: settings, GOROOT, PATH, then the usual places', () => {
  const cases: { name: string; goroot: string; alt: string; files: string[]; env: NodeJS.ProcessEnv; want: string | undefined }[] = [
    { name: 'alternate tool', goroot: '', alt: '/opt/go1.26/bin/go', files: ['/opt/go1.26/bin/go', '/usr/local/go/bin/go'], env: {}, want: '/opt/go1.26/bin/go' },
    { name: 'alternate tool on PATH', goroot: '', alt: 'go1.26', files: ['/home/me/go/bin/go1.26'], env: { PATH: '/home/me/go/bin' }, want: '/home/me/go/bin/go1.26' },
    { name: 'goroot setting', goroot: '/sdk/go', alt: '', files: ['/sdk/go/bin/go', '/usr/bin/go'], env: { PATH: '/usr/bin' }, want: '/sdk/go/bin/go' },
    { name: 'GOROOT', goroot: '', alt: '', files: ['/goroot/bin/go', '/usr/bin/go'], env: { GOROOT: '/goroot', PATH: '/usr/bin' }, want: '/goroot/bin/go' },
    { name: 'PATH', goroot: '', alt: '', files: ['/usr/bin/go', '/usr/local/go/bin/go'], env: { PATH: '/usr/bin' }, want: '/usr/bin/go' },
    { name: 'not on PATH: /usr/local/go (seen in code-server)', goroot: '', alt: '', files: ['/usr/local/go/bin/go'], env: { PATH: '/usr/bin:/bin' }, want: '/usr/local/go/bin/go' },
    { name: 'nowhere', goroot: '', alt: '', files: [], env: { PATH: '/bin' }, want: undefined },
  ];
  for (const c of cases) {
    assert.equal(findGo({ goroot: c.goroot, alternateGo: c.alt }, host(c.files, c.env)), c.want, c.name);
  }
});

test('the tools get Go first on PATH', () => {
  const env = toolEnv('/usr/local/go/bin/go', host([], { PATH: '/usr/bin:/usr/local/go/bin', HOME: '/home/me' }));
  assert.equal(env.PATH, '/usr/local/go/bin:/usr/bin');
  assert.equal(env.HOME, '/home/me');
  assert.deepEqual(goBinDirs(host([], { GOBIN: '/b' })), ['/b']);
});

test('interleave: the setting, else the bundled binary, else PATH', () => {
  const bundled = bundledPath('/ext', 'linux');
  assert.equal(bundled, '/ext/extension/bin/interleave');
  const cases: { name: string; setting: string; files: string[]; want: string | undefined; source: string }[] = [
    { name: 'bundled before PATH', setting: '', files: [bundled, '/usr/bin/interleave'], want: bundled, source: 'bundled' },
    { name: 'setting before bundled', setting: '/opt/il', files: [bundled, '/opt/il'], want: '/opt/il', source: 'setting' },
    { name: 'a wrong setting is not replaced by the bundled binary', setting: '/opt/missing', files: [bundled], want: undefined, source: 'setting' },
    { name: 'universal .vsix: PATH', setting: '', files: ['/usr/bin/interleave'], want: '/usr/bin/interleave', source: 'path' },
    { name: 'nothing', setting: '', files: [], want: undefined, source: 'bundled' },
  ];
  for (const c of cases) {
    const l = locateInterleave(c.setting, bundled, host(c.files, { PATH: '/usr/bin' }));
    assert.equal(l.path, c.want, c.name);
    assert.equal(l.source, c.source, c.name);
  }
  assert.equal(bundledPath('C:\\ext', 'win32').endsWith('interleave.exe'), true);
});

test('a missing binary: what was looked for and how to fix it; where machine settings live', () => {
  const wrong = missingInterleaveMessage(locateInterleave('/opt/missing', '/ext/extension/bin/interleave', host([])), false);
  assert.match(wrong, /interleave\.path is "\/opt\/missing", which is not an executable file/);
  assert.doesNotMatch(wrong, /go install/);
  const none = missingInterleaveMessage(locateInterleave('', '/ext/extension/bin/interleave', host([], { PATH: '/usr/bin' })), true);
  assert.match(none, /looked in: \/ext\/extension\/bin\/interleave, \/usr\/bin\/interleave/);
  assert.match(none, /go build \.\/cmd\/interleave/);
  assert.doesNotMatch(none, /go install/);
  assert.ok(none.endsWith(machineSettingsHint), 'a remote window is told where machine settings live');
  assert.match(machineSettingsHint, /code-server\/Machine\/settings\.json/);
});

test('interleave version: a mismatch names both versions', () => {
  const out = 'interleave version 0.0.9 commit abc123 go1.26.8 linux/amd64\n';
  assert.deepEqual(parseVersion(out), { version: '0.0.9', commit: 'abc123' });
  assert.equal(parseVersion('interleave: unknown command "version"'), undefined);
  assert.equal(versionWarning('/opt/il', { version: '0.1.0', commit: 'x' }, '0.1.0'), undefined);
  const w = versionWarning('/opt/il', parseVersion(out), '0.1.0') ?? '';
  assert.match(w, /\/opt\/il is interleave 0\.0\.9 \(commit abc123\), but this extension is 0\.1\.0/);
  assert.match(versionWarning('/opt/il', undefined, '0.1.0') ?? '', /does not say its version.*0\.1\.0/);
});

test('macOS and Windows: the bundled binary and Go where they differ from Linux', () => {
  assert.equal(bundledPath('/Users/me/.vscode/extensions/x', 'darwin'), '/Users/me/.vscode/extensions/x/extension/bin/interleave');
  const mac: Host = { env: { PATH: '/usr/bin:/bin' }, platform: 'darwin', homedir: '/Users/me', isExecutable: (p) => p === '/opt/homebrew/opt/go/libexec/bin/go' };
  assert.equal(findGo({ goroot: '', alternateGo: '' }, mac), '/opt/homebrew/opt/go/libexec/bin/go', 'Homebrew on Apple silicon, not on the PATH of an app started from the Dock');
  const bundled = '/Users/me/.vscode/extensions/x/extension/bin/interleave';
  assert.equal(locateInterleave('', bundled, { ...mac, isExecutable: (p) => p === bundled }).path, bundled);
});
