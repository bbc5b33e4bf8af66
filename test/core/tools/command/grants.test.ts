import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  grantChoices,
  grantCovers,
  parsePattern,
  patternText,
} from '../../../../main/core/tools/command/index.js'
import type { CommandPattern } from '../../../../main/core/tools/command/index.js'
import { useFixture } from './setup.js'

const f = useFixture()

const p = (text: string): CommandPattern => {
  const pattern = parsePattern(text)
  if (pattern === undefined) throw new Error(`not a pattern: ${text}`)
  return pattern
}

const choices = (line: string) => {
  const c = grantChoices(f.parse(line), f.judge(line))
  return c === undefined
    ? undefined
    : { exact: c.exact.map(patternText), general: c.general.map(patternText) }
}

const covers = (patterns: readonly string[], line: string) =>
  grantCovers(patterns.map(p), f.parse(line), f.judge(line), { projectDir: f.project })

describe('pattern text', () => {
  it.each<[CommandPattern, string]>([
    [{ argv: ['npm', 'test'], rest: true }, 'npm test *'],
    [{ argv: ['npm', 'test', '--', '-u'], rest: false }, 'npm test -- -u'],
    [{ argv: ['echo', 'a b'], rest: false }, "echo 'a b'"],
    [{ argv: ['ls', '*'], rest: false }, "ls '*'"],
    [{ argv: ['ls', '*'], rest: true }, "ls '*' *"],
    [{ argv: ['echo', "it's", ''], rest: false }, `echo 'it'\\''s' ''`],
    [{ argv: ['cat', '~/x', '$HOME'], rest: false }, `cat '~/x' '$HOME'`],
  ])('%j is %s', (pattern, text) => {
    expect(patternText(pattern)).toBe(text)
    expect(parsePattern(text)).toEqual(pattern)
  })

  it('round-trips any pattern', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string(), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        (argv, rest) => {
          expect(parsePattern(patternText({ argv, rest }))).toEqual({ argv, rest })
        },
      ),
      { numRuns: 500 },
    )
  })

  it('reads double quotes and backslashes a person may type', () => {
    expect(parsePattern('git commit -m "a \\"b\\""  *')).toEqual({
      argv: ['git', 'commit', '-m', 'a "b"'],
      rest: true,
    })
    expect(parsePattern('echo a\\ b')).toEqual({ argv: ['echo', 'a b'], rest: false })
  })

  it.each([
    '',
    '   ',
    '*',
    'rm $X',
    'a; b',
    'a | b',
    'ls *.ts',
    'ls * x',
    'echo `x`',
    "echo 'x",
    'echo "$x"',
    'ls ~/x',
    'a > b',
  ])('rejects %j', (text) => {
    expect(parsePattern(text)).toBeUndefined()
  })
})

describe('grant choices', () => {
  it.each<[string, string[], string[]]>([
    ['npm test', ['npm test'], ['npm test *']],
    ['npm test -- -u', ['npm test -- -u'], ['npm test *']],
    [
      'npm --workspace app run build',
      ['npm --workspace app run build'],
      ['npm --workspace app run *'],
    ],
    ['npx vitest run x', ['npx vitest run x'], ['npx vitest *']],
    ['git -C sub status', ['git -C sub status'], ['git -C sub status *']],
    [
      'git status && git diff --stat',
      ['git status', 'git diff --stat'],
      ['git status *', 'git diff *'],
    ],
    ['python3 -m pytest -x', ['python3 -m pytest -x'], ['python3 -m pytest *']],
    ['python3 script.py', ['python3 script.py'], ['python3 *']],
    [
      'cargo +nightly build --release',
      ['cargo +nightly build --release'],
      ['cargo +nightly build *'],
    ],
    ['make -C sub test', ['make -C sub test'], ['make -C sub test *']],
    ['ls -la src', ['ls -la src'], ['ls *']],
    ['bash -c "ls -la"', ["bash -c 'ls -la'", 'ls -la'], ['bash *', 'ls *']],
    ['npm test 2>&1 > /dev/null', ['npm test'], ['npm test *']],
    ['nice -n 5 npm test', ['npm test'], ['npm test *']],
    ['echo "a b" | wc -c', ["echo 'a b'", 'wc -c'], ['echo *', 'wc *']],
  ])('%s', (line, exact, general) => {
    expect(choices(line)).toEqual({ exact, general })
  })

  it.each([
    'rm -rf build',
    'git push --force',
    'sudo ls',
    'node -e "console.log(1)"',
    'echo $X',
    'echo $(date)',
    'FOO=1 npm test',
    'npm test > out.txt',
    'wc -l < input.txt',
    'echo "x',
    'cat <<EOF\n$HOME $X\nEOF',
  ])('none for %s', (line) => {
    expect(choices(line)).toBeUndefined()
  })

  it('every choice covers the line it came from', () => {
    for (const line of [
      'npm test -- -u',
      'git status && git diff',
      'bash -c "ls"',
      'ls src | wc -l',
    ]) {
      const c = choices(line)
      expect(c).toBeDefined()
      expect(covers(c?.exact ?? [], line)).toBe(true)
      expect(covers(c?.general ?? [], line)).toBe(true)
    }
  })
})

describe('grant coverage', () => {
  it('npm test * covers npm test with any arguments, and nothing else', () => {
    const grant = ['npm test *']
    expect(covers(grant, 'npm test')).toBe(true)
    expect(covers(grant, 'npm test -- -u')).toBe(true)
    expect(covers(grant, 'npm test src/a.test.ts')).toBe(true)
    expect(covers(grant, 'npm testx')).toBe(false)
    expect(covers(grant, 'npm run build')).toBe(false)
    expect(covers(grant, 'npm test && ls')).toBe(false)
    expect(covers(grant, 'npm test; rm -rf ~')).toBe(false)
    expect(covers(grant, 'npm test > out.txt')).toBe(false)
    expect(covers(grant, 'FOO=1 npm test')).toBe(false)
    expect(covers(grant, 'npm test $(rm x)')).toBe(false)
  })

  it('the extra words that name paths must stay inside the project', () => {
    const grant = ['npm test *', 'cd *', 'ls *']
    expect(covers(grant, 'npm test ./src')).toBe(true)
    expect(covers(grant, 'npm test ../other')).toBe(false)
    expect(covers(grant, 'npm test --config=/etc/x')).toBe(false)
    expect(covers(grant, 'npm test ~/x')).toBe(false)
    expect(covers(grant, 'cd sub && ls')).toBe(true)
    expect(covers(grant, 'cd .. && ls')).toBe(false)
    expect(covers(grant, 'ls ../*')).toBe(false)
    expect(covers(grant, 'ls *')).toBe(true)
  })

  it('an exact pattern covers only that command', () => {
    expect(covers(['npm test'], 'npm test')).toBe(true)
    expect(covers(['npm test'], 'npm test -u')).toBe(false)
    expect(covers(["ls '*'"], "ls '*'")).toBe(true)
    expect(covers(["ls '*'"], 'ls src')).toBe(false)
  })

  it('never covers recursive deletes or destructive pushes, whatever the pattern', () => {
    expect(covers(['rm -rf build'], 'rm -rf build')).toBe(false)
    expect(covers(['rm -rf build *'], 'rm -rf build /')).toBe(false)
    expect(covers(['rm *'], 'rm -rf build')).toBe(false)
    expect(covers(['rm *'], 'rm a.txt')).toBe(true)
    const push = ['git push *']
    expect(covers(push, 'git push origin main')).toBe(true)
    expect(covers(push, 'git push --delete origin x')).toBe(false)
    expect(covers(push, 'git push --mirror')).toBe(false)
    expect(covers(push, 'git push -f')).toBe(false)
    expect(covers(push, 'git push origin +main')).toBe(false)
    expect(covers(push, 'git push origin :old')).toBe(false)
  })

  it('nested commands need patterns of their own', () => {
    expect(covers(['bash *'], 'bash -c "ls"')).toBe(false)
    expect(covers(['bash *', 'ls *'], 'bash -c "ls"')).toBe(true)
    expect(covers(['echo *'], 'echo $(ls)')).toBe(false)
  })
})
