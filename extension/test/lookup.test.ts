import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { findGo, findInterleave, goBinDirs, Host, installArgs, toolEnv } from '../src/tools/lookup';

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
  assert.deepEqual(installArgs('0.1.0'), ['install', 'github.com/interleave-dev/interleave/cmd/interleave@v0.1.0']);
});
