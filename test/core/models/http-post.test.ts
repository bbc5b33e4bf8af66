import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'
import { afterEach, describe, expect, it } from 'vitest'
import { errorBodyText, httpPost } from '../../../main/core/models/http-post.js'
import type { HttpReply } from '../../../main/core/models/http-post.js'

/** What a test server saw of one request. */
interface Seen {
  readonly url: string
  readonly headers: IncomingMessage['headers']
  readonly body: string
  readonly port: number
}

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        }),
    ),
  )
})

/** A server answering each request with `answer`; it records requests and counts connections. */
async function serve(answer: (seen: Seen, res: ServerResponse) => void) {
  const seen: Seen[] = []
  let connections = 0
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (body += chunk))
    req.on('end', () => {
      const entry = {
        url: req.url ?? '',
        headers: req.headers,
        body,
        port: req.socket.remotePort ?? 0,
      }
      seen.push(entry)
      answer(entry, res)
    })
  })
  server.on('connection', () => connections++)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, seen, connections: () => connections }
}

const post = (url: string, body = '{"stream":true}', signal = new AbortController().signal) =>
  httpPost(url, {
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    body,
    signal,
  })

async function readAll(reply: HttpReply): Promise<string> {
  return reply.text()
}

describe('httpPost', () => {
  it('sends the JSON body and reads the reply, keeping one connection for the next request', async () => {
    const server = await serve((_, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end('data: [DONE]\n\n')
    })
    for (let i = 0; i < 3; i++) {
      const reply = await post(`${server.url}/v1/chat/completions`, `{"n":${i}}`)
      expect(reply.status).toBe(200)
      expect(reply.contentType).toBe('text/event-stream')
      expect(await readAll(reply)).toBe('data: [DONE]\n\n')
    }
    expect(server.seen.map((s) => s.body)).toEqual(['{"n":0}', '{"n":1}', '{"n":2}'])
    expect(server.seen[0]?.headers['content-length']).toBe('7')
    expect(server.seen[0]?.headers['authorization']).toBe('Bearer k')
    expect(server.connections()).toBe(1)
  })

  it('decompresses a reply the server compressed unasked', async () => {
    const server = await serve((_, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' })
      res.end(gzipSync('data: {"a":1}\n\ndata: [DONE]\n\n'))
    })
    const reply = await post(server.url)
    expect(await readAll(reply)).toBe('data: {"a":1}\n\ndata: [DONE]\n\n')
    const response = (await post(server.url)).toResponse()
    expect(response.headers.get('content-encoding')).toBeNull()
    expect(await response.text()).toBe('data: {"a":1}\n\ndata: [DONE]\n\n')
  })

  it('follows a redirect with the same POST, and keeps the key from another origin', async () => {
    const other = await serve((seen, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ got: seen.body, auth: seen.headers['authorization'] ?? null }))
    })
    const first = await serve((seen, res) => {
      if (seen.url === '/old') {
        res.writeHead(308, { location: '/new' }).end()
      } else if (seen.url === '/new') {
        res.writeHead(302, { location: `${other.url}/final` }).end()
      }
    })
    const reply = await post(`${first.url}/old`, '{"x":1}')
    expect(reply.status).toBe(200)
    expect(await reply.json()).toEqual({ got: '{"x":1}', auth: null })
    expect(first.seen.map((s) => [s.url, s.body, s.headers['authorization']])).toEqual([
      ['/old', '{"x":1}', 'Bearer k'],
      ['/new', '{"x":1}', 'Bearer k'],
    ])
    expect(other.seen.map((s) => s.url)).toEqual(['/final'])
  })

  it('stops after five redirects and gives the last one back', async () => {
    const server = await serve((_, res) => res.writeHead(307, { location: '/again' }).end())
    const reply = await post(server.url)
    expect(reply.status).toBe(307)
    expect(server.seen).toHaveLength(6)
  })

  it('cancels the reply mid-body when the signal aborts', async () => {
    let sent = false
    const server = await serve((_, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('data: 1\n\n', () => (sent = true))
      // Never ends: only the abort can stop the read.
    })
    const controller = new AbortController()
    const reply = await post(server.url, '{}', controller.signal)
    const chunks: string[] = []
    const reading = (async () => {
      for await (const chunk of reply.body) {
        chunks.push(Buffer.from(chunk).toString())
        controller.abort()
      }
    })()
    await expect(reading).rejects.toThrow(/abort/i)
    expect(sent).toBe(true)
    expect(chunks).toEqual(['data: 1\n\n'])
  })

  it('fails with the connection error when nothing listens', async () => {
    const server = await serve(() => undefined)
    const url = server.url
    await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()))
    await expect(post(url)).rejects.toMatchObject({ code: 'ECONNREFUSED' })
  })

  it('reads at most 64 KB of an error body, and what came before the connection died', async () => {
    const big = await serve((_, res) => {
      res.writeHead(500, { 'content-type': 'text/html' })
      res.end('x'.repeat(1024 * 1024))
    })
    const text = await errorBodyText(await post(big.url))
    expect(text.length).toBeGreaterThanOrEqual(64 * 1024)
    expect(text.length).toBeLessThan(1024 * 1024)

    const cut = await serve((_, res) => {
      res.writeHead(500, { 'content-type': 'text/plain', 'content-length': '100' })
      res.write('context length exceeded', () => res.destroy())
    })
    expect(await errorBodyText(await post(cut.url))).toBe('context length exceeded')
  })

  it('lets the process exit while a kept-alive connection is idle', async () => {
    const server = await serve((_, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end('data: [DONE]\n\n')
    })
    const module = pathToFileURL(
      join(import.meta.dirname, '../../../main/core/models/http-post.ts'),
    )
    const script = `
      const { httpPost } = await import(${JSON.stringify(module.href)})
      const reply = await httpPost(${JSON.stringify(server.url)}, { headers: {}, body: '{}', signal: new AbortController().signal })
      process.stdout.write(await reply.text())`
    const tsx = pathToFileURL(
      join(import.meta.dirname, '../../../node_modules/tsx/dist/loader.mjs'),
    )
    const child = spawn(
      process.execPath,
      ['--import', tsx.href, '--input-type=module', '-e', script],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
    expect(out).toBe('data: [DONE]\n\n')
    expect(code).toBe(0)
    // The server still holds the connection: the child left while it was open.
    expect(server.connections()).toBe(1)
  })
})
