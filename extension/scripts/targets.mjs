// The platforms a .vsix is built for (vsce package --target), with the Go target of the
// interleave binary each carries and where in the .vsix it lies.

/** @type {{ target: string, goos: string, goarch: string, exe: string }[]} */
export const targets = [
  { target: 'linux-x64', goos: 'linux', goarch: 'amd64', exe: 'interleave' },
  { target: 'linux-arm64', goos: 'linux', goarch: 'arm64', exe: 'interleave' },
  { target: 'darwin-x64', goos: 'darwin', goarch: 'amd64', exe: 'interleave' },
  { target: 'darwin-arm64', goos: 'darwin', goarch: 'arm64', exe: 'interleave' },
  { target: 'win32-x64', goos: 'windows', goarch: 'amd64', exe: 'interleave.exe' },
];

/** The .vsix of a target under extension/dist; universal (no target) has no binary. */
export function vsixName(target) {
  return target === undefined ? 'interleave-universal.vsix' : `interleave-${target}.vsix`;
}

/** Where the binary is in the package tree (extension/bin/…), and so in the .vsix (extension/extension/bin/…). */
export function binPath(exe) {
  return `extension/bin/${exe}`;
}
