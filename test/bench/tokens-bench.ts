/**
 * Token counting speed on 1 MB of this repo's own TypeScript and Markdown: exact BPE (o200k,
 * cl100k) and the estimate, plus what the per-message cache saves on a long history.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { deepFreeze } from '../../main/core/log/freeze.js'
import type { Message } from '../../main/core/log/messages.js'
import { estimateTokens, loadEncoding, tokenCounter } from '../../main/core/tokens/index.js'
import { figure, percentile, time } from './figures.js'
import type { Figure } from './figures.js'

const MB = 1_000_000
const RUNS = 5

/** 1 MB of distinct text, so the tokenizer's merge cache does not flatter it. */
function corpus(size: number): string {
  const root = fileURLToPath(new URL('../../', import.meta.url))
  const files = ['main', 'test', 'renderer']
    .flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).map((path) =>
        join(root, dir, path),
      ),
    )
    .filter((path) => /\.(ts|tsx|md)$/.test(path))
    .sort()
  let text = ''
  // The repo holds about 1 MB of such files; a smaller checkout repeats them.
  for (let i = 0; text.length < size && files.length > 0; i++) {
    text += readFileSync(files[i % files.length] ?? '', 'utf8')
  }
  return text.slice(0, size)
}

/** The median of `RUNS` timings of `count(text)`, and its result. */
async function measure(count: (text: string) => number, text: string): Promise<[number, number]> {
  let tokens = 0
  const samples: number[] = []
  for (let i = 0; i < RUNS; i++) samples.push(await time(() => (tokens = count(text))))
  return [percentile(samples, 50), tokens]
}

export async function benchTokens(): Promise<Figure[]> {
  const figures: Figure[] = []
  const all = corpus(MB + MB / 10)
  const text = all.slice(0, MB)
  const unseen = all.slice(MB)

  const loadMs = await time(() => loadEncoding('o200k_base')('x'))
  figures.push(
    figure('tokens: load o200k_base (first count)', loadMs, 'ms', {
      text: '< 500 ms',
      isMet: loadMs < 500,
    }),
  )

  // One pass each: the package caches merges, so a second pass over the same text flatters it.
  const ms100k = await time(() => loadEncoding('o200k_base')(unseen))
  figures.push(
    figure('tokens: exact o200k_base on 100 KB', ms100k, 'ms', {
      text: '< 50 ms',
      isMet: ms100k < 50,
    }),
  )
  for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
    const count = loadEncoding(encoding)
    let tokens = 0
    const ms = await time(() => (tokens = count(text)))
    const perSecond = tokens / (ms / 1000)
    figures.push(
      figure(`tokens: exact ${encoding} on 1 MB`, perSecond, 'tokens/s', {
        text: '>= 1M tokens/s',
        isMet: perSecond >= 1_000_000,
      }),
    )
  }

  const [estimateMs, estimated] = await measure(estimateTokens, text)
  const estimatePerSecond = estimated / (estimateMs / 1000)
  figures.push(
    figure('tokens: estimate on 1 MB', estimatePerSecond, 'tokens/s', {
      text: '>= 10M tokens/s',
      isMet: estimatePerSecond >= 10_000_000,
    }),
  )
  figures.push(
    figure(
      'tokens: estimate / o200k_base on 1 MB',
      estimated / loadEncoding('o200k_base')(text),
      'x',
    ),
  )

  // A 1 MB history of 200 messages, counted once and then again as the next step would.
  const history = deepFreeze(
    Array.from({ length: 200 }, (_, i): Message => ({
      role: 'tool',
      callId: `c${i}`,
      isError: false,
      content: text.slice(i * 5000, (i + 1) * 5000),
      seq: i,
    })),
  )
  const counter = tokenCounter('gpt-4o')
  const firstMs = await time(() => counter.countMessages(history))
  const againMs = await time(() => counter.countMessages(history))
  figures.push(figure('tokens: count a 1 MB history (200 messages), first', firstMs, 'ms'))
  figures.push(
    figure('tokens: count the same history again (cached)', againMs, 'ms', {
      text: '< 1 ms',
      isMet: againMs < 1,
    }),
  )
  return figures
}
