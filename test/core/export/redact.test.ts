import { describe, expect, it } from 'vitest'
import { createRedactor, REDACTED, secretsFromEnv } from '../../../main/core/export/redact.js'
import { fake } from '../../fixtures/fake-secrets.js'

const redact = createRedactor({
  secrets: ['hunter2-local-key', 'short'],
  home: '/home/alice',
})

describe('createRedactor', () => {
  it('hides the exact secret values it was given, wherever they appear', () => {
    expect(redact('key is hunter2-local-key.')).toBe(`key is ${REDACTED}.`)
    expect(redact('xhunter2-local-keyx')).toBe(`x${REDACTED}x`)
    // Too short to look for: it would match ordinary words.
    expect(redact('a short story')).toBe('a short story')
  })

  it.each([
    ['OpenAI', `use ${fake('sk', '-proj-AbCdEf0123456789abcdef')} now`],
    ['DeepSeek', fake('sk', '-0123456789abcdef0123456789abcdef')],
    ['GitHub classic', fake('ghp', '_0123456789abcdefABCDEF0123456789abcd')],
    ['GitHub fine-grained', fake('github', '_pat_11AAAAAAA0123456789_abcdefghijklmnop')],
    ['AWS', `id ${fake('AKIA', 'IOSFODNN7EXAMPLE')} here`],
    ['Slack', fake('xo', 'xb-1234567890-abcdefghij')],
  ])('replaces a %s token', (_, text) => {
    const out = redact(text)
    expect(out).toContain(REDACTED)
    expect(out).not.toMatch(/sk-[A-Za-z0-9]{8}|ghp_|github_pat_|AKIA|xoxb-/)
  })

  it('keeps the words around a Bearer token and a NAME= assignment', () => {
    expect(redact('Authorization: Bearer abc.def-ghi_jkl')).toBe(
      `Authorization: Bearer ${REDACTED}`,
    )
    expect(redact('export OPENAI_API_KEY=abc123def && run')).toBe(
      `export OPENAI_API_KEY=${REDACTED} && run`,
    )
    expect(redact('DB_PASSWORD="two words"')).toBe(`DB_PASSWORD="${REDACTED}"`)
    expect(redact('https://x.test/?token=abc123&page=2')).toBe(
      `https://x.test/?token=${REDACTED}&page=2`,
    )
    expect(redact('{"api_key": "abc", "name": "x"}')).toBe(
      `{"api_key": "${REDACTED}", "name": "x"}`,
    )
    expect(redact("const clientSecret = 'abc'")).toBe(`const clientSecret = "${REDACTED}"`)
  })

  it('replaces a PEM private key block whole, even one cut before its end', () => {
    const pem = [
      'before',
      fake('-----BEGIN RSA PRIV', 'ATE KEY-----'),
      'MIIEowIBAAKCAQEA',
      fake('-----END RSA PRIV', 'ATE KEY-----'),
      'after',
    ].join('\n')
    expect(redact(pem)).toBe(`before\n${REDACTED}\nafter`)
    expect(redact(fake('x\n-----BEGIN PRIV', 'ATE KEY-----\nMIIE'))).toBe(`x\n${REDACTED}`)
    // A public key is not a secret.
    expect(redact('-----BEGIN PUBLIC KEY-----')).toBe('-----BEGIN PUBLIC KEY-----')
  })

  it('shows the home folder as ~, but not a longer name that starts like it', () => {
    expect(redact('cd /home/alice/project && ls /home/alice')).toBe('cd ~/project && ls ~')
    expect(redact('/home/alicea/x and /home/alice.bak')).toBe('/home/alicea/x and /home/alice.bak')
    expect(createRedactor({ home: '/' })('/usr/bin')).toBe('/usr/bin')
  })

  it('leaves ordinary text and code alone', () => {
    const plain = [
      'monkey=banana keyword=x',
      'if (a < b && tokens.length > 0) return key',
      'const apiKey = process.env.KEY',
      'password: string',
      'a task-list and sk-short',
    ].join('\n')
    expect(redact(plain)).toBe(plain)
  })

  it('is idempotent', () => {
    const text = fake(
      'TOKEN=abc sk',
      '-0123456789abcdef0123 Bearer abcdefghij "secret": "x" /home/alice',
    )
    expect(redact(redact(text))).toBe(redact(text))
  })
})

describe('secretsFromEnv', () => {
  it('takes the named variables and the ones whose name says credential', () => {
    const env = {
      MY_ENDPOINT: 'endpoint-value',
      GITHUB_TOKEN: 'gh-value',
      AWS_SECRET_ACCESS_KEY: 'aws-value',
      PATH: '/usr/bin',
      KEYBOARD: 'us',
      UNSET: undefined,
    }
    expect(secretsFromEnv(env, ['MY_ENDPOINT', 'UNSET']).sort()).toEqual([
      'aws-value',
      'endpoint-value',
      'gh-value',
    ])
  })
})
