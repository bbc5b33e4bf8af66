/** Freezes a plain JSON value and everything inside it. Returns the same value. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}

/**
 * Throws a TypeError naming the path of anything JSON cannot carry faithfully: cycles, BigInt,
 * functions, NaN, Infinity and -0, sparse arrays or undefined items, and non-plain objects such
 * as Date or Map. An `undefined` object property is allowed: it means "absent".
 */
export function assertPlainJson(value: unknown): void {
  checkPlain(value, new Set())
}

function checkPlain(value: unknown, seen: Set<object>, path = 'data'): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return
    case 'number':
      if (!Number.isFinite(value))
        throw new TypeError(`${path} is ${value}, which JSON cannot carry`)
      if (Object.is(value, -0)) throw new TypeError(`${path} is -0, which JSON reads back as 0`)
      return
    case 'undefined':
      return // an absent optional field; JSON.stringify drops the key
    case 'object': {
      if (value === null) return
      if (seen.has(value)) throw new TypeError(`${path} refers back to itself (a cycle)`)
      seen.add(value)
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          if (!(i in value)) throw new TypeError(`${path}[${i}] is a hole in a sparse array`)
          if (value[i] === undefined) throw new TypeError(`${path}[${i}] is undefined`)
          checkPlain(value[i], seen, `${path}[${i}]`)
        }
      } else {
        const proto = Object.getPrototypeOf(value) as unknown
        if (proto !== Object.prototype && proto !== null) {
          throw new TypeError(`${path} is not a plain object`)
        }
        for (const [key, item] of Object.entries(value)) checkPlain(item, seen, `${path}.${key}`)
      }
      seen.delete(value)
      return
    }
    default:
      throw new TypeError(`${path} is a ${typeof value}, which JSON cannot carry`)
  }
}
