import { setTimeout as delay } from 'node:timers/promises'
import { describe, it, expect, vi } from 'vitest'
import { Kernel, PluginError } from '../../../main/core/kernel/index.js'
import type {
  Emit,
  KernelFault,
  Plugin,
  PluginContext,
  Serial,
  Waterfall,
} from '../../../main/core/kernel/index.js'

type Events = {
  'log/appended': Emit<{ seq: number }>
  'request/build': Waterfall<{ words: string[] }, string>
  'turn/check': Serial<{ turn: number }, string>
}

interface Clock {
  now(): number
}

type Services = {
  clock: Clock
}

type Ctx = PluginContext<Events, Services>

function plugin(name: string, setup: (ctx: Ctx) => void | Promise<void>): Plugin<Events, Services> {
  return { name, setup }
}

/**
 * A kernel whose isolated faults are collected instead of printed, with counting listeners and
 * `reach()`: what a firing of each event reaches now, and whether the clock is served. The kernel
 * has no introspection of its own, so tests look at it from outside, as plugins do.
 */
function makeKernel() {
  const faults: KernelFault[] = []
  const kernel = new Kernel<Events, Services>((fault) => {
    faults.push(fault)
  })
  const hits = { emit: 0, waterfall: 0, serial: 0 }
  const counting = {
    emit: () => {
      hits.emit++
    },
    waterfall: (
      input: { words: string[] },
      next: (input: { words: string[] }) => Promise<string>,
    ) => {
      hits.waterfall++
      return next(input)
    },
    serial: () => {
      hits.serial++
      return 'ok'
    },
  }
  /** Fires each event once; every listener here runs synchronously, so the counts are exact. */
  const reach = () => {
    const before = { ...hits }
    kernel.emit('log/appended', { seq: 0 })
    void kernel.waterfall('request/build', { words: [] }, joinWords).catch(() => undefined)
    void kernel.serial('turn/check', { turn: 0 }).catch(() => undefined)
    let isClockServed = true
    try {
      kernel.service('clock')
    } catch {
      isClockServed = false
    }
    return {
      emit: hits.emit - before.emit,
      waterfall: hits.waterfall - before.waterfall,
      serial: hits.serial - before.serial,
      clock: isClockServed,
    }
  }
  return { kernel, faults, counting, reach }
}

/** Loads a plugin and hands back its context, to register through it from the test. */
async function loadWithContext(kernel: Kernel<Events, Services>, name: string): Promise<Ctx> {
  let saved: Ctx | undefined
  await kernel.load(
    plugin(name, (ctx) => {
      saved = ctx
    }),
  )
  if (!saved) throw new Error(`setup of "${name}" did not run`)
  return saved
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected the promise to reject')
}

function asPluginError(error: unknown): PluginError {
  expect(error).toBeInstanceOf(PluginError)
  return error as PluginError
}

const clock: Clock = { now: () => 42 }
const joinWords = (input: { words: string[] }) => input.words.join(' ')
const appendWord =
  (word: string) =>
  (input: { words: string[] }, next: (input: { words: string[] }) => Promise<string>) =>
    next({ words: [...input.words, word] })

describe('disposers', () => {
  it('unload undoes listeners of all three modes, services and tracked disposers, newest first', async () => {
    const { kernel, faults, counting, reach } = makeKernel()
    const seen: { at: string; emit: number; waterfall: number; serial: number; clock: boolean }[] =
      []
    const record = (at: string) => () => {
      seen.push({ at, ...reach() })
    }
    await kernel.load(
      plugin('everything', (ctx) => {
        ctx.track(record('t0'))
        ctx.on('log/appended', counting.emit)
        ctx.track(record('t1'))
        ctx.on('request/build', counting.waterfall)
        ctx.track(record('t2'))
        ctx.on('turn/check', counting.serial)
        ctx.track(record('t3'))
        ctx.provide('clock', clock)
        ctx.track(record('t4'))
      }),
    )
    expect(reach()).toEqual({ emit: 1, waterfall: 1, serial: 1, clock: true })
    expect(seen).toEqual([])

    kernel.unload('everything')

    // Each tracked disposer sees exactly the registrations made before it: reverse order.
    expect(seen).toEqual([
      { at: 't4', emit: 1, waterfall: 1, serial: 1, clock: true },
      { at: 't3', emit: 1, waterfall: 1, serial: 1, clock: false },
      { at: 't2', emit: 1, waterfall: 1, serial: 0, clock: false },
      { at: 't1', emit: 1, waterfall: 0, serial: 0, clock: false },
      { at: 't0', emit: 0, waterfall: 0, serial: 0, clock: false },
    ])
    expect(reach()).toEqual({ emit: 0, waterfall: 0, serial: 0, clock: false })
    expect(faults).toEqual([])

    kernel.unload('everything')
    expect(seen).toHaveLength(5)
    // The name is free again: it was unloaded.
    await expect(kernel.load(plugin('everything', () => undefined))).resolves.toBeUndefined()
  })

  it('runs each disposer at most once, whether called directly, twice, or again by unload', async () => {
    const { kernel, counting, reach } = makeKernel()
    const ctx = await loadWithContext(kernel, 'p')
    const undo = vi.fn()
    const offTracked = ctx.track(undo)
    const offFirst = ctx.on('log/appended', counting.emit)
    ctx.on('log/appended', counting.emit)
    const offClock = ctx.provide('clock', clock)

    offTracked()
    offTracked()
    offFirst()
    offFirst()
    offClock()
    expect(undo).toHaveBeenCalledTimes(1)
    expect(reach()).toMatchObject({ emit: 1, clock: false })

    // A stale disposer must not remove what someone else registered since.
    const other = await loadWithContext(kernel, 'other')
    const otherClock: Clock = { now: () => 7 }
    other.provide('clock', otherClock)
    offClock()
    expect(kernel.service('clock')).toBe(otherClock)

    kernel.unload('p')
    expect(undo).toHaveBeenCalledTimes(1)
    expect(reach()).toMatchObject({ emit: 0 })
    expect(kernel.service('clock')).toBe(otherClock)
  })

  it('refuses registrations through the context of an unloaded plugin, leaving no trace', async () => {
    const { kernel, counting, reach } = makeKernel()
    const ctx = await loadWithContext(kernel, 'gone')
    kernel.unload('gone')

    expect(() => ctx.on('log/appended', counting.emit)).toThrow('plugin "gone" is unloaded')
    expect(() => ctx.on('request/build', counting.waterfall)).toThrow(/unloaded/)
    expect(() => ctx.on('turn/check', counting.serial)).toThrow(/unloaded/)
    expect(() => ctx.provide('clock', clock)).toThrow(/unloaded/)
    const late = vi.fn()
    expect(() => ctx.track(late)).toThrow(/unloaded/)

    expect(reach()).toEqual({ emit: 0, waterfall: 0, serial: 0, clock: false })
    // The adopted disposer is run at once, so whatever it guards does not leak.
    expect(late).toHaveBeenCalledTimes(1)
  })

  it('unloadAll unloads in reverse load order', async () => {
    const { kernel } = makeKernel()
    const unloaded: string[] = []
    const tracking = (name: string) =>
      plugin(name, (ctx) => {
        ctx.track(() => unloaded.push(name))
      })
    await kernel.load(tracking('a'))
    await kernel.load(tracking('b'))
    await kernel.load(tracking('c'))
    kernel.unload('a')
    await kernel.load(tracking('a'))
    unloaded.length = 0

    kernel.unloadAll()

    expect(unloaded).toEqual(['a', 'c', 'b'])
    // Every name is free again.
    for (const name of ['a', 'b', 'c']) await kernel.load(plugin(name, () => undefined))
  })

  it('reports a failing disposer and still runs the others', async () => {
    const { kernel, faults, counting, reach } = makeKernel()
    const ran: string[] = []
    const stuck = new Error('stuck handle')
    await kernel.load(
      plugin('leaky', (ctx) => {
        ctx.track(() => ran.push('first'))
        ctx.on('log/appended', counting.emit)
        ctx.track(() => {
          throw stuck
        })
        ctx.track(() => ran.push('third'))
      }),
    )

    expect(() => kernel.unload('leaky')).not.toThrow()

    expect(ran).toEqual(['third', 'first'])
    expect(reach()).toMatchObject({ emit: 0 })
    expect(faults).toEqual([{ plugin: 'leaky', phase: 'dispose', error: stuck }])
    expect(faults[0]?.error).toBe(stuck)
  })
})

describe('load', () => {
  type Counting = ReturnType<typeof makeKernel>['counting']
  it.each([
    [
      'throws synchronously',
      (ctx: Ctx, undo: () => void, counting: Counting) => {
        ctx.on('log/appended', counting.emit)
        ctx.on('request/build', counting.waterfall)
        ctx.on('turn/check', counting.serial)
        ctx.provide('clock', clock)
        ctx.track(undo)
        throw new Error('no config')
      },
    ],
    [
      'rejects after an await',
      async (ctx: Ctx, undo: () => void, counting: Counting) => {
        ctx.on('log/appended', counting.emit)
        ctx.provide('clock', clock)
        await delay(1)
        ctx.on('request/build', counting.waterfall)
        ctx.on('turn/check', counting.serial)
        ctx.track(undo)
        throw new Error('no config')
      },
    ],
  ])(
    'undoes partial registrations when setup %s, and rejects naming the plugin',
    async (_, setup) => {
      const { kernel, counting, reach } = makeKernel()
      const undo = vi.fn()

      const error = asPluginError(
        await rejectionOf(kernel.load(plugin('broken', (ctx) => setup(ctx, undo, counting)))),
      )

      expect(error.plugin).toBe('broken')
      expect(error.event).toBe('setup')
      expect(error.message).toContain('"broken"')
      expect(error.message).toContain('no config')
      expect(error.cause).toEqual(new Error('no config'))
      expect(reach()).toEqual({ emit: 0, waterfall: 0, serial: 0, clock: false })
      expect(undo).toHaveBeenCalledTimes(1)

      // The name is free again once the failed load is undone.
      await kernel.load(plugin('broken', (ctx) => void ctx.provide('clock', clock)))
      expect(kernel.service('clock')).toBe(clock)
    },
  )

  it('rejects loading the same name twice and keeps the first', async () => {
    const { kernel } = makeKernel()
    await kernel.load(plugin('p', (ctx) => void ctx.provide('clock', clock)))
    const secondSetup = vi.fn()

    await expect(kernel.load(plugin('p', secondSetup))).rejects.toThrow(
      'plugin "p" is already loaded',
    )

    expect(secondSetup).not.toHaveBeenCalled()
    expect(kernel.service('clock')).toBe(clock)
  })
})

describe('emit', () => {
  it.each([
    [
      'throws synchronously',
      (): unknown => {
        throw new Error('bad listener')
      },
    ],
    ['returns a rejected promise', (): unknown => Promise.reject(new Error('bad listener'))],
  ])('isolates a listener that %s, reports it, and still notifies later ones', async (_, bad) => {
    const { kernel, faults } = makeKernel()
    const before = vi.fn()
    const after = vi.fn()
    await kernel.load(plugin('before', (ctx) => void ctx.on('log/appended', before)))
    await kernel.load(plugin('bad', (ctx) => void ctx.on('log/appended', bad)))
    await kernel.load(plugin('after', (ctx) => void ctx.on('log/appended', after)))

    expect(() => kernel.emit('log/appended', { seq: 7 })).not.toThrow()

    expect(before).toHaveBeenCalledWith({ seq: 7 })
    expect(after).toHaveBeenCalledWith({ seq: 7 })
    await vi.waitFor(() => expect(faults).toHaveLength(1))
    expect(faults).toEqual([
      { plugin: 'bad', event: 'log/appended', phase: 'listener', error: new Error('bad listener') },
    ])
  })
})

describe('waterfall', () => {
  it("passes each listener's input to the next in registration order, ending in the final function", async () => {
    const { kernel } = makeKernel()
    await kernel.load(plugin('one', (ctx) => void ctx.on('request/build', appendWord('one'))))
    await kernel.load(
      plugin('two', (ctx) => {
        ctx.on(
          'request/build',
          async (input, next) => `${await next({ words: [...input.words, 'two'] })}!`,
        )
      }),
    )
    await kernel.load(plugin('three', (ctx) => void ctx.on('request/build', appendWord('three'))))
    const final = vi.fn(joinWords)

    const output = await kernel.waterfall('request/build', { words: ['start'] }, final)

    expect(final).toHaveBeenCalledTimes(1)
    expect(final).toHaveBeenCalledWith({ words: ['start', 'one', 'two', 'three'] })
    // Outputs flow back up the chain, so 'two' sees and changes what came after it.
    expect(output).toBe('start one two three!')
  })

  it('runs lower `order` first and equal orders by registration', async () => {
    const { kernel } = makeKernel()
    const ctx = await loadWithContext(kernel, 'p')
    ctx.on('request/build', appendWord('late'), { order: 10 })
    ctx.on('request/build', appendWord('default-1'))
    ctx.on('request/build', appendWord('early'), { order: -5 })
    ctx.on('request/build', appendWord('default-2'), { order: 0 })

    const output = await kernel.waterfall('request/build', { words: [] }, joinWords)

    expect(output).toBe('early default-1 default-2 late')
  })

  it('lets a listener short-circuit: later listeners and the final function do not run', async () => {
    const { kernel } = makeKernel()
    const ctx = await loadWithContext(kernel, 'p')
    const seenByCache = vi.fn()
    const later = vi.fn(appendWord('later'))
    const final = vi.fn(joinWords)
    ctx.on('request/build', appendWord('first'))
    ctx.on('request/build', (input) => {
      seenByCache(input)
      return 'from cache'
    })
    ctx.on('request/build', later)

    const output = await kernel.waterfall('request/build', { words: [] }, final)

    expect(output).toBe('from cache')
    expect(seenByCache).toHaveBeenCalledWith({ words: ['first'] })
    expect(later).not.toHaveBeenCalled()
    expect(final).not.toHaveBeenCalled()
  })

  it('rejects a listener that calls next twice', async () => {
    const { kernel } = makeKernel()
    await kernel.load(
      plugin('greedy', (ctx) => {
        ctx.on('request/build', async (input, next) => {
          await next(input)
          return next(input)
        })
      }),
    )
    const final = vi.fn(joinWords)

    const error = asPluginError(
      await rejectionOf(kernel.waterfall('request/build', { words: ['x'] }, final)),
    )

    expect(error.plugin).toBe('greedy')
    expect(error.event).toBe('request/build')
    expect(error.message).toMatch(/called next\(\) twice/)
    expect(final).toHaveBeenCalledTimes(1)
  })

  it('rejects with a PluginError naming the listener that threw, not the ones around it', async () => {
    const { kernel } = makeKernel()
    const final = vi.fn(joinWords)
    await kernel.load(plugin('outer', (ctx) => void ctx.on('request/build', appendWord('outer'))))
    await kernel.load(
      plugin('faulty', (ctx) => {
        ctx.on('request/build', () => {
          throw new Error('bad hook')
        })
      }),
    )
    const inner = vi.fn(appendWord('inner'))
    await kernel.load(plugin('inner', (ctx) => void ctx.on('request/build', inner)))

    const error = asPluginError(
      await rejectionOf(kernel.waterfall('request/build', { words: [] }, final)),
    )

    expect(error.plugin).toBe('faulty')
    expect(error.event).toBe('request/build')
    expect(error.cause).toEqual(new Error('bad hook'))
    expect(error.message).toBe('plugin "faulty" failed in "request/build": bad hook')
    expect(inner).not.toHaveBeenCalled()
    expect(final).not.toHaveBeenCalled()
  })

  it('passes an error of the final function through unchanged, blaming no plugin', async () => {
    const { kernel } = makeKernel()
    const modelDown = new Error('model endpoint unreachable')
    const final = () => Promise.reject(modelDown)
    const fire = () => rejectionOf(kernel.waterfall('request/build', { words: [] }, final))

    expect(await fire()).toBe(modelDown)
    // Listeners that merely pass the failure up through next() must not change what the caller sees.
    await kernel.load(plugin('bystander', (ctx) => void ctx.on('request/build', appendWord('x'))))
    await kernel.load(plugin('awaiting', (ctx) => void ctx.on('request/build', appendWord('y'))))
    expect(await fire()).toBe(modelDown)

    // A listener that turns the failure into an error of its own is the one to blame.
    const ctx = await loadWithContext(kernel, 'translator')
    ctx.on(
      'request/build',
      async (input, next) => {
        try {
          return await next(input)
        } catch {
          throw new Error('could not build the request')
        }
      },
      { order: -1 },
    )
    const error = asPluginError(await fire())
    expect(error.plugin).toBe('translator')
    expect(error.cause).toEqual(new Error('could not build the request'))
  })
})

describe('serial', () => {
  it('awaits each listener before starting the next and returns results in order', async () => {
    const { kernel } = makeKernel()
    const steps: string[] = []
    const timed = (name: string, ms: number) => async () => {
      steps.push(`${name}:start`)
      await delay(ms)
      steps.push(`${name}:end`)
      return name
    }
    await kernel.load(plugin('slow', (ctx) => void ctx.on('turn/check', timed('slow', 30))))
    await kernel.load(plugin('fast', (ctx) => void ctx.on('turn/check', timed('fast', 1))))
    await kernel.load(
      plugin('sync', (ctx) => {
        ctx.on('turn/check', ({ turn }) => {
          steps.push('sync')
          return `sync@${turn}`
        })
      }),
    )

    const results = await kernel.serial('turn/check', { turn: 3 })

    expect(steps).toEqual(['slow:start', 'slow:end', 'fast:start', 'fast:end', 'sync'])
    expect(results).toEqual(['slow', 'fast', 'sync@3'])
  })

  it('stops at the first throw and rejects with a PluginError naming that plugin', async () => {
    const { kernel } = makeKernel()
    const first = vi.fn(() => 'fine')
    const third = vi.fn(() => 'never')
    await kernel.load(plugin('first', (ctx) => void ctx.on('turn/check', first)))
    await kernel.load(
      plugin('stopper', (ctx) => {
        ctx.on('turn/check', async () => {
          await delay(1)
          throw new Error('over budget')
        })
      }),
    )
    await kernel.load(plugin('third', (ctx) => void ctx.on('turn/check', third)))

    const error = asPluginError(await rejectionOf(kernel.serial('turn/check', { turn: 1 })))

    expect(error.plugin).toBe('stopper')
    expect(error.event).toBe('turn/check')
    expect(error.cause).toEqual(new Error('over budget'))
    expect(first).toHaveBeenCalledTimes(1)
    expect(third).not.toHaveBeenCalled()
  })
})

describe('scopes', () => {
  it('emit reaches a scoped listener only for its scope, and an unscoped one always', async () => {
    const { kernel } = makeKernel()
    const ctx = await loadWithContext(kernel, 'p')
    const scoped = vi.fn()
    const unscoped = vi.fn()
    ctx.on('log/appended', scoped, { scope: 'session-a' })
    ctx.on('log/appended', unscoped)

    kernel.emit('log/appended', { seq: 1 }, { scope: 'session-b' })
    kernel.emit('log/appended', { seq: 2 })
    kernel.emit('log/appended', { seq: 3 }, { scope: 'session-a' })

    expect(scoped.mock.calls).toEqual([[{ seq: 3 }]])
    expect(unscoped.mock.calls).toEqual([[{ seq: 1 }], [{ seq: 2 }], [{ seq: 3 }]])
  })

  it('waterfall chains only the listeners of the fired scope plus the unscoped ones', async () => {
    const { kernel } = makeKernel()
    const ctx = await loadWithContext(kernel, 'p')
    ctx.on('request/build', appendWord('a'), { scope: 'session-a' })
    ctx.on('request/build', appendWord('b'), { scope: 'session-b' })
    ctx.on('request/build', appendWord('all'))

    const build = (scope?: string) =>
      kernel.waterfall('request/build', { words: [] }, joinWords, scope ? { scope } : {})

    expect(await build('session-a')).toBe('a all')
    expect(await build('session-b')).toBe('b all')
    expect(await build()).toBe('all')
  })

  it('serial runs only the listeners of the fired scope plus the unscoped ones', async () => {
    const { kernel } = makeKernel()
    const ctx = await loadWithContext(kernel, 'p')
    ctx.on('turn/check', () => 'a', { scope: 'session-a' })
    ctx.on('turn/check', () => 'all')
    ctx.on('turn/check', () => 'b', { scope: 'session-b' })

    expect(await kernel.serial('turn/check', { turn: 1 }, { scope: 'session-a' })).toEqual([
      'a',
      'all',
    ])
    expect(await kernel.serial('turn/check', { turn: 1 }, { scope: 'session-b' })).toEqual([
      'all',
      'b',
    ])
    expect(await kernel.serial('turn/check', { turn: 1 })).toEqual(['all'])
  })
})

describe('services', () => {
  it('serves a provided service by name, to the kernel and to other plugins', async () => {
    const { kernel } = makeKernel()
    await kernel.load(plugin('clock', (ctx) => void ctx.provide('clock', clock)))
    let seenByUser: number | undefined
    await kernel.load(
      plugin('user', (ctx) => {
        seenByUser = ctx.service('clock').now()
      }),
    )

    expect(kernel.service('clock')).toBe(clock)
    expect(seenByUser).toBe(42)
  })

  it('refuses a second provider, naming the first', async () => {
    const { kernel } = makeKernel()
    await kernel.load(plugin('first', (ctx) => void ctx.provide('clock', clock)))
    const ctx = await loadWithContext(kernel, 'second')

    expect(() => ctx.provide('clock', { now: () => 0 })).toThrow(
      'service "clock" is already provided by plugin "first" (plugin "second" tried again)',
    )
    const error = asPluginError(
      await rejectionOf(kernel.load(plugin('third', (c) => void c.provide('clock', clock)))),
    )
    expect(error.message).toContain('already provided by plugin "first"')
    expect(kernel.service('clock')).toBe(clock)
  })

  it('throws a clear error for a service nobody provides', async () => {
    const { kernel } = makeKernel()
    expect(() => kernel.service('clock')).toThrow(
      'no service "clock" is provided (is its plugin loaded?)',
    )

    await kernel.load(plugin('clock', (ctx) => void ctx.provide('clock', clock)))
    kernel.unload('clock')
    expect(() => kernel.service('clock')).toThrow('no service "clock" is provided')
  })
})

describe('typing', () => {
  it('lets emit, waterfall and serial fire only events of their own mode', () => {
    const { kernel } = makeKernel()
    const fireWrongModes = () => {
      // @ts-expect-error 'request/build' is a waterfall hook: emit() must not fire it
      kernel.emit('request/build', { words: [] })
      // @ts-expect-error 'turn/check' is a serial check: emit() must not fire it
      kernel.emit('turn/check', { turn: 1 })
      // @ts-expect-error the payload of 'log/appended' is { seq: number }
      kernel.emit('log/appended', { seq: 'one' })
      // @ts-expect-error 'log/appended' is an emit event: it has no waterfall chain
      void kernel.waterfall('log/appended', { seq: 1 }, () => 'x')
      // @ts-expect-error 'request/build' is a waterfall hook: serial() must not fire it
      void kernel.serial('request/build', { words: [] })
    }
    expect(fireWrongModes).toBeTypeOf('function')
  })
})
