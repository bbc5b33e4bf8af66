import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { LIST_CACHE_MS, ProjectFileLister } from '../../../main/core/host/sessions/file-list.js'
import { toChatCompletionParams } from '../../../main/core/models/chat-request.js'
import { toOllamaChatBody } from '../../../main/core/models/ollama-request.js'
import type { Message } from '../../../main/core/log/messages.js'

let home: string
let project: string

beforeEach(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-files-')))
  project = join(home, 'project')
  mkdirSync(project)
})

afterEach(() => rmSync(home, { recursive: true, force: true }))

const write = (path: string, text = 'x') => {
  mkdirSync(join(project, path, '..'), { recursive: true })
  writeFileSync(join(project, path), text)
}

describe('project/files', () => {
  it('lists project files without .git, node_modules, ignored paths or links out of the folder', async () => {
    write('README.md')
    write('src/main.ts')
    write('.git/config')
    write('node_modules/pkg/index.js')
    write('dist/out.js')
    write('.gitignore', 'dist/\n')
    mkdirSync(join(home, 'outside'))
    writeFileSync(join(home, 'outside', 'secret.txt'), 'secret')
    symlinkSync(join(home, 'outside'), join(project, 'escape'))
    symlinkSync(join(home, 'outside', 'secret.txt'), join(project, 'secret-link.txt'))

    const listing = await new ProjectFileLister().list(project)
    expect(listing).toEqual({ paths: ['.gitignore', 'README.md', 'src/main.ts'], isComplete: true })
  })

  it('reuses a listing briefly, then walks the folder again', async () => {
    write('a.txt')
    let now = 1000
    const lister = new ProjectFileLister(() => now)
    expect((await lister.list(project)).paths).toEqual(['a.txt'])
    write('b.txt')
    expect((await lister.list(project)).paths).toEqual(['a.txt'])
    now += LIST_CACHE_MS
    expect((await lister.list(project)).paths).toEqual(['a.txt', 'b.txt'])
  })
})

describe('images on the Ollama native API', () => {
  it("puts a user message's images next to its text as bare base64", () => {
    const user: Message = {
      role: 'user',
      content: 'what is this?',
      seq: 1,
      kind: 'input',
      images: [{ mime: 'image/png', data: 'AAAA' }],
    }
    const body = toOllamaChatBody({ model: 'llava', messages: [user], tools: [], params: {} })
    expect(body['messages']).toEqual([{ role: 'user', content: 'what is this?', images: ['AAAA'] }])
  })
})

describe('images with tools described as text', () => {
  it('keeps the images of merged user messages, in order, on both APIs', () => {
    const image = (data: string) => ({ mime: 'image/png' as const, data })
    const messages: Message[] = [
      { role: 'user', content: 'one', seq: 1, kind: 'input', images: [image('AAAA')] },
      { role: 'user', content: 'two', seq: 2, kind: 'input', images: [image('BBBB')] },
    ]
    const tools = [{ name: 'read', description: 'Reads a file.', parameters: {} }]
    const textWire = {
      api: 'openai',
      toolCalls: 'text',
      streamUsage: true,
      replayReasoning: false,
    } as const
    const openai = toChatCompletionParams({
      model: 'llava',
      messages,
      tools,
      params: {},
      wire: textWire,
    })
    expect(openai.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'one\n\ntwo' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,BBBB' } },
      ],
    })
    const ollama = toOllamaChatBody({
      model: 'llava',
      messages,
      tools,
      params: {},
      wire: { ...textWire, api: 'ollama' },
    })
    expect((ollama['messages'] as unknown[]).at(-1)).toEqual({
      role: 'user',
      content: 'one\n\ntwo',
      images: ['AAAA', 'BBBB'],
    })
  })
})
