import { describe, expect, it } from 'vitest'
import {
  BASE_URL_MESSAGE,
  checkBaseUrl,
  checkEndpointDraft,
  COMPACTION_TARGETS,
  DEFAULTS_TARGETS,
  endpointTargets,
  hasErrors,
  parseCompactionText,
  placeFieldErrors,
  ruleTargets,
} from '../../renderer/src/features/settings/field-errors'

describe('placeFieldErrors', () => {
  it("puts an endpoint's errors next to its inputs and keeps the rest", () => {
    const placed = placeFieldErrors(
      [
        { path: 'endpoints.local.baseUrl', message: 'must be an http(s) URL' },
        { path: 'endpoints.local.apiKeyEnv', message: 'must be a variable name' },
        { path: 'endpoints.other.baseUrl', message: 'not this form' },
        { path: 'compaction.threshold', message: 'too big' },
      ],
      endpointTargets('local'),
    )
    expect(placed.byField).toEqual({
      baseUrl: 'must be an http(s) URL',
      apiKeyEnv: 'must be a variable name',
    })
    expect(placed.unplaced.map((field) => field.path)).toEqual([
      'endpoints.other.baseUrl',
      'compaction.threshold',
    ])
  })

  it('gives an error about the endpoint itself (an over-long id) to the name input', () => {
    const placed = placeFieldErrors(
      [{ path: 'endpoints.local', message: 'at most 200 characters' }],
      endpointTargets(' local '),
    )
    expect(placed.byField).toEqual({ id: 'at most 200 characters' })
  })

  it('does not take a longer id that shares a prefix for this one', () => {
    const placed = placeFieldErrors(
      [{ path: 'endpoints.local2.baseUrl', message: 'x' }],
      endpointTargets('local'),
    )
    expect(placed.byField).toEqual({})
    expect(placed.unplaced).toHaveLength(1)
  })

  it('gives a nested path to the nearest input and joins two errors of one input', () => {
    const placed = placeFieldErrors(
      [
        { path: 'compaction.prune.keepSteps', message: 'too many steps' },
        { path: 'compaction.threshold', message: 'must be at most 0.95' },
        { path: 'compaction.threshold', message: 'must be a number' },
      ],
      COMPACTION_TARGETS,
    )
    expect(placed.byField).toEqual({
      prune: 'too many steps',
      threshold: 'must be at most 0.95; must be a number',
    })
  })

  it('maps the defaults and the rules by position', () => {
    expect(
      placeFieldErrors(
        [
          { path: 'defaultEndpoint', message: 'names an endpoint that does not exist' },
          { path: 'defaultModel', message: 'too short' },
        ],
        DEFAULTS_TARGETS,
      ).byField,
    ).toEqual({ endpointId: 'names an endpoint that does not exist', model: 'too short' })
    expect(
      placeFieldErrors([{ path: 'approvalRules.1.prefix', message: 'empty' }], ruleTargets(2))
        .byField,
    ).toEqual({ 'rule-1': 'empty' })
  })

  it('keeps a top-level error (empty path) for the form', () => {
    const placed = placeFieldErrors([{ path: '', message: 'not an object' }], COMPACTION_TARGETS)
    expect(placed.unplaced).toEqual([{ path: '', message: 'not an object' }])
  })
})

describe('client-side checks', () => {
  it('takes http(s) URLs and refuses the rest, saying what to write', () => {
    expect(checkBaseUrl('http://127.0.0.1:11434/v1')).toBeUndefined()
    expect(checkBaseUrl(' https://api.openai.com/v1 ')).toBeUndefined()
    expect(checkBaseUrl('localhost:11434')).toBe(BASE_URL_MESSAGE)
    expect(checkBaseUrl('ftp://host/v1')).toBe(BASE_URL_MESSAGE)
    expect(checkBaseUrl('not a url')).toBe(BASE_URL_MESSAGE)
    expect(checkBaseUrl('')).toMatch(/enter the server address/)
  })

  it('checks a new endpoint: name, address, key variable', () => {
    const ctx = { existingIds: ['local'], isNew: true }
    expect(checkEndpointDraft({ id: 'lab', baseUrl: 'http://a:1/v1', apiKeyEnv: '' }, ctx)).toEqual(
      {},
    )
    const bad = checkEndpointDraft({ id: 'local', baseUrl: 'localhost', apiKeyEnv: 'sk-123' }, ctx)
    expect(bad.id).toMatch(/exists already/)
    expect(bad.baseUrl).toBe(BASE_URL_MESSAGE)
    expect(bad.apiKeyEnv).toMatch(/environment variable/)
    expect(hasErrors(bad)).toBe(true)
    expect(
      checkEndpointDraft({ id: 'a.b', baseUrl: 'http://a/v1', apiKeyEnv: '' }, ctx).id,
    ).toMatch(/letters, digits/)
    expect(
      checkEndpointDraft({ id: 'cli', baseUrl: 'http://a/v1', apiKeyEnv: '' }, ctx).id,
    ).toMatch(/bridle serve/)
    expect(checkEndpointDraft({ id: '', baseUrl: 'http://a/v1', apiKeyEnv: '' }, ctx).id).toMatch(
      /short name/,
    )
  })

  it('does not check the id of an endpoint being edited', () => {
    const ctx = { existingIds: ['local'], isNew: false }
    expect(
      checkEndpointDraft({ id: 'local', baseUrl: 'http://a/v1', apiKeyEnv: 'KEY' }, ctx),
    ).toEqual({})
  })

  it('parses the compaction inputs within the schema bounds', () => {
    expect(parseCompactionText({ threshold: '0.75', keepUserTurns: '2' })).toEqual({
      ok: true,
      threshold: 0.75,
      keepUserTurns: 2,
    })
    const bad = parseCompactionText({ threshold: '0.99', keepUserTurns: '1.5' })
    expect(bad.ok).toBe(false)
    if (!bad.ok) {
      expect(Object.keys(bad.errors).sort()).toEqual(['keepUserTurns', 'threshold'])
    }
    expect(parseCompactionText({ threshold: '', keepUserTurns: '0' }).ok).toBe(false)
    expect(parseCompactionText({ threshold: '0.1', keepUserTurns: '50' }).ok).toBe(true)
  })
})
