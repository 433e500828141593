// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// The Skills extension through the MCP TypeScript SDK v2's own host side
// (SkillsClient of @modelcontextprotocol/client/ext/skills): snodo-demo
// --skills-dir over stdio, in 2025-11-25 (versionNegotiation legacy) and
// 2026-07-28 (pinned). The SDK checks every entry, and every file it reads
// against the entry's size, digest and front matter. Output is TAP.
//
//   node tests/interop/client-v2-skills.mjs [path/to/snodo-demo]
//
// Without an argument the demo is taken from $SNODO_DEMO (meson sets it).

import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { Client } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const demo = process.argv[2] ?? process.env.SNODO_DEMO;
if (!demo) {
  console.log('Bail out! no snodo-demo: pass its path or set SNODO_DEMO');
  process.exit(2);
}

const files = {
  'git-workflow/SKILL.md': '---\nname: git-workflow\ndescription: >-\n  Follow the team\'s Git conventions\n'
    + '  for branches and commits\nlicense: Apache-2.0\nmetadata:\n  version: "2.1"\n  reviewed: "yes"\n'
    + 'allowed-tools: Bash Read\n---\n\n# Git workflow\n\nSee references/GUIDE.md.\n',
  'git-workflow/references/GUIDE.md': '# Guide\n\nRebase, do not merge.\n',
  'git-workflow/scripts/check.py': 'print("checked")\n',
  'pdf-processing/SKILL.md': '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n'
    + '---\n\n# PDF\n',
  'pdf-processing/templates/invoice.md': '# Invoice\n',
};
const dir = mkdtempSync(join(tmpdir(), 'snodo-skills-'));
for (const [path, text] of Object.entries(files)) {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}

let n = 0;
let failed = 0;
function check(condition, message) {
  n++;
  if (!condition)
    failed++;
  console.log(`${condition ? 'ok' : 'not ok'} ${n} - ${message}`);
}

const sha256 = (text) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

async function run(mode, era) {
  const client = new Client({ name: 'snodo-interop-skills', version: '0.1.0' },
    { versionNegotiation: { mode } });
  const transport = new StdioClientTransport({ command: demo, args: [`--skills-dir=${dir}`], stderr: 'ignore' });
  await client.connect(transport);
  try {
    const skills = new SkillsClient(client);
    check(skills.supported && skills.directoryRead, `${era}: the extension is advertised, with directoryRead`);

    const listing = await skills.list();
    const uris = listing.skills.map((s) => s.uri);
    check(JSON.stringify(uris) === JSON.stringify(['skill://git-workflow/SKILL.md', 'skill://pdf-processing/SKILL.md']),
      `${era}: skills/list: ${JSON.stringify(uris)}`);
    check(listing.invalid.length === 0, `${era}: every entry is valid`);
    const git = listing.skills[0];
    check(JSON.stringify(git.frontmatter) === JSON.stringify({
      name: 'git-workflow', description: 'Follow the team\'s Git conventions for branches and commits',
      license: 'Apache-2.0', metadata: { version: '2.1', reviewed: 'yes' }, 'allowed-tools': 'Bash Read',
    }), `${era}: the front matter as written: ${JSON.stringify(git.frontmatter)}`);
    const guide = git.resources.find((r) => r.uri === 'skill://git-workflow/references/GUIDE.md');
    check(guide?.digest === sha256(files['git-workflow/references/GUIDE.md'])
      && guide?.size === files['git-workflow/references/GUIDE.md'].length,
      `${era}: the guide's digest and size`);
    check(era === 'legacy' ? listing.ttlMs === undefined : typeof listing.ttlMs === 'number',
      `${era}: cache hints in 2026-07-28 only (ttlMs ${listing.ttlMs})`);

    // SKILL.md: size, digest, and front matter checked by the SDK.
    const skillMd = await skills.read(git);
    check(skillMd.verified && skillMd.body?.includes('# Git workflow'), `${era}: SKILL.md read and verified`);
    const read = await skills.read(git, 'references/GUIDE.md');
    check(read.verified && read.text === files['git-workflow/references/GUIDE.md'],
      `${era}: references/GUIDE.md read and verified`);
    let refused = false;
    try {
      await skills.read(git, 'references/MISSING.md');
    } catch {
      refused = true;
    }
    check(refused, `${era}: an unlisted file is refused`);

    const got = await skills.get('skill://pdf-processing/SKILL.md');
    check(got.skill.uri === 'skill://pdf-processing/SKILL.md' && got.skill.resources.length === 2,
      `${era}: skills/get`);
    let unknown;
    try {
      await skills.get('skill://nowhere/SKILL.md');
    } catch (error) {
      unknown = error;
    }
    check(unknown?.code === -32602, `${era}: skills/get of an unknown skill is -32602 (${unknown?.code})`);

    const directory = await skills.readDirectory('skill://git-workflow');
    const names = directory.resources.map((r) => `${r.name}:${r.mimeType}`);
    check(JSON.stringify(names) === JSON.stringify(['SKILL.md:text/markdown', 'references:inode/directory',
      'scripts:inode/directory']), `${era}: resources/directory/read: ${JSON.stringify(names)}`);
  } finally {
    await client.close();
  }
}

try {
  await run('legacy', 'legacy');
  await run({ pin: '2026-07-28' }, '2026-07-28');
} catch (error) {
  check(false, `unexpected error: ${error?.stack ?? error}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`1..${n}`);
process.exit(failed > 0 ? 1 : 0);
