// Checks the .vsix files npm run package built (npm run test:package, .ci/run): each
// platform's names its target in its manifest and carries the interleave binary of that
// platform (its executable format and architecture read from the file's header; executable
// in the archive on Unix), the linux-x64 one's binary runs and prints the package's version;
// the universal one has no target and no binary. Reads the zip archives itself (no unzip).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { binPath, targets, vsixName } from './targets.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = path.join(repo, 'extension', 'dist');
const { version } = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));

/** The entries of a zip archive: name → { mode (Unix, from the external attributes), data() }. */
function readZip(file) {
  const b = fs.readFileSync(file);
  let eocd = b.length - 22;
  while (eocd >= 0 && b.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  assert.ok(eocd >= 0, `${file}: not a zip archive`);
  const count = b.readUInt16LE(eocd + 10);
  let p = b.readUInt32LE(eocd + 16);
  const entries = new Map();
  for (let i = 0; i < count; i++) {
    assert.equal(b.readUInt32LE(p), 0x02014b50, `${file}: central directory entry ${i}`);
    const method = b.readUInt16LE(p + 10);
    const csize = b.readUInt32LE(p + 20);
    const nameLen = b.readUInt16LE(p + 28), extraLen = b.readUInt16LE(p + 30), commentLen = b.readUInt16LE(p + 32);
    const mode = b.readUInt32LE(p + 38) >>> 16;
    const local = b.readUInt32LE(p + 42);
    const name = b.toString('utf8', p + 46, p + 46 + nameLen);
    entries.set(name, {
      mode,
      data() {
        const start = local + 30 + b.readUInt16LE(local + 26) + b.readUInt16LE(local + 28);
        const raw = b.subarray(start, start + csize);
        return method === 0 ? raw : zlib.inflateRawSync(raw);
      },
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** The executable format and architecture a binary's header says: "elf/amd64", "macho/arm64", "pe/amd64". */
function binaryKind(h) {
  if (h.readUInt32BE(0) === 0x7f454c46) {
    return `elf/${{ 0x3e: 'amd64', 0xb7: 'arm64' }[h.readUInt16LE(18)] ?? h.readUInt16LE(18)}`;
  }
  if (h.readUInt32LE(0) === 0xfeedfacf) {
    return `macho/${{ 0x01000007: 'amd64', 0x0100000c: 'arm64' }[h.readUInt32LE(4)] ?? h.readUInt32LE(4)}`;
  }
  if (h.toString('latin1', 0, 2) === 'MZ') {
    const pe = h.readUInt32LE(0x3c);
    return `pe/${{ 0x8664: 'amd64', 0xaa64: 'arm64' }[h.readUInt16LE(pe + 4)] ?? h.readUInt16LE(pe + 4)}`;
  }
  return 'unknown';
}

const formats = { linux: 'elf', darwin: 'macho', windows: 'pe' };

for (const t of targets) {
  test(`${vsixName(t.target)}: target ${t.target} in the manifest, the ${t.goos}/${t.goarch} interleave inside`, () => {
    const entries = readZip(path.join(dist, vsixName(t.target)));
    const manifest = entries.get('extension.vsixmanifest').data().toString('utf8');
    assert.match(manifest, new RegExp(`TargetPlatform="${t.target}"`), 'the manifest names the target');
    const binaries = [...entries.keys()].filter((n) => n.startsWith('extension/extension/bin/'));
    assert.deepEqual(binaries, [`extension/${binPath(t.exe)}`], 'one binary, named for the platform');
    const e = entries.get(`extension/${binPath(t.exe)}`);
    const data = e.data();
    assert.equal(binaryKind(data), `${formats[t.goos]}/${t.goarch}`);
    if (t.goos !== 'windows') {
      assert.equal(e.mode & 0o111, 0o111, `mode ${e.mode.toString(8)}: executable`);
    }
    // The DWARF section's name, as Go writes it in ELF, PE (compressed) and Mach-O (compressed).
    for (const section of ['.debug_info', '.zdebug_info', '__zdebug_info']) {
      assert.ok(!data.includes(Buffer.from(section)), `stripped: no ${section} section`);
    }
    if (t.goos === process.platform && t.goarch === { x64: 'amd64', arm64: 'arm64' }[process.arch]) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vsix-test-'));
      try {
        const exe = path.join(dir, t.exe);
        fs.writeFileSync(exe, data, { mode: 0o755 });
        const out = execFileSync(exe, ['version'], { encoding: 'utf8' });
        assert.match(out, new RegExp(`^interleave version ${version.replace(/\./g, '\\.')} commit [0-9a-f]{12}(-dirty)? go\\S+ ${t.goos}/${t.goarch}\\n$`));
        console.log(`${vsixName(t.target)}: ${out.trim()}`);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  });
}

test(`${vsixName(undefined)}: no target, no binary`, () => {
  const entries = readZip(path.join(dist, vsixName(undefined)));
  assert.doesNotMatch(entries.get('extension.vsixmanifest').data().toString('utf8'), /TargetPlatform/);
  assert.deepEqual([...entries.keys()].filter((n) => n.includes('/bin/')), []);
  assert.ok(entries.has('extension/extension/dist/extension.js'));
  assert.ok(entries.has('extension/extension/dist/timeline.js'), 'the timeline webview\'s script');
});
