import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadShellParser, MAX_DEPTH } from '../../../../main/core/tools/command/index.js'
import { shape, useFixture } from './setup.js'

const f = useFixture()

describe('loading the parser', () => {
  it('loads once: a second call shares the first promise', async () => {
    const [a, b] = await Promise.all([loadShellParser(), loadShellParser()])
    expect(a).toBe(b)
    expect(await loadShellParser()).toBe(a)
  })
})

describe('words', () => {
  it('removes quotes and escapes the way bash does', () => {
    const [cmd] = f.commands(`'rm' "-rf" r\\m a\\ b $'a\\tb' "a\\"b" 'it'\\''s' $"hi"`)
    expect(cmd?.argv.map((w) => w.value)).toEqual([
      'rm',
      '-rf',
      'rm',
      'a b',
      'a\tb',
      'a"b',
      "it's",
      'hi',
    ])
    expect(cmd?.argv.every((w) => w.literal)).toBe(true)
  })

  it('resolves ~, $HOME, ${HOME} and $PWD; leaves other expansions unknown', () => {
    const cmd = f
      .commands('echo ~ ~/x "$HOME"/y ${HOME} $PWD of=~/z ~other $X "$(date)" /etc/$X')
      .at(-1)
    const words = cmd?.argv.slice(1) ?? []
    expect(words.map((w) => [w.value, w.literal])).toEqual([
      [f.home, true],
      [join(f.home, 'x'), true],
      [join(f.home, 'y'), true],
      [f.home, true],
      [f.project, true],
      [`of=${f.home}/z`, true],
      ['~other', false],
      ['$X', false],
      ['$(date)', false],
      ['/etc/$X', false],
    ])
    expect(words.at(-1)?.prefix).toBe('/etc/')
  })

  it('does not resolve a quoted ~, and $PWD is unknown when the folder is', () => {
    const [quoted] = f.commands(`echo '~' "~"`)
    expect(quoted?.argv.slice(1).map((w) => w.value)).toEqual(['~', '~'])
    const [, after] = f.commands('cd "$X"; echo $PWD')
    expect(after?.argv[1]?.literal).toBe(false)
  })

  it('expands braces and marks unquoted globs', () => {
    const [cmd] = f.commands(`rm -rf {build,/} f{1..3} "*" '?' \\* *.o [ab]x`)
    expect(cmd?.argv.slice(2).map((w) => [w.value, w.glob])).toEqual([
      ['build', false],
      ['/', false],
      ['f1', false],
      ['f2', false],
      ['f3', false],
      ['*', false],
      ['?', false],
      ['*', false],
      ['*.o', true],
      ['[ab]x', true],
    ])
  })
})

describe('descending into every part of a line', () => {
  it.each([
    ['a; b && c || d & e | f |& g', ['0:a', '0:b', '0:c', '0:d', '0:e', '0:f', '0:g']],
    ['(a; b) && { c; } ; ! d', ['0:a', '0:b', '0:c', '0:d']],
    ['if a; then b; elif c; then d; else e; fi', ['0:a', '0:b', '0:c', '0:d', '0:e']],
    ['for x in 1 $(a); do b $x; done', ['1:a', '0:b $x']],
    ['for ((i=0; i<$(a); i++)); do b; done', ['1:a', '0:b']],
    ['while a; do b; done; until c; do d; done', ['0:a', '0:b', '0:c', '0:d']],
    ['case $(a) in x) b;; *) c;; esac', ['1:a', '0:b', '0:c']],
    ['f() { a; }; function g { b; }', ['0:a', '0:b']],
    ['echo $(a $(b)) `c`', ['2:b', '1:a $(b)', '1:c', '0:echo $(a $(b)) `c`']],
    ['diff <(a) >(b)', ['1:a', '1:b', '0:diff <(a) >(b)']],
    ['[[ -f $(a) ]] && (( x = $(b) ))', ['1:a', '1:b']],
    ['X=$(a) Y=2', ['1:a', '0:']],
    ['FOO=1 BAR=2 a x', ['0:a x']],
    ['export A=$(a) B; local c; unset D', ['1:a', '0:export A=$(a) B', '0:local c', '0:unset D']],
    ['bash -c \'a; sh -c "b"\'', ['0:bash -c a; sh -c "b"', '1:a', '1:sh -c b', '2:b']],
    [
      "dash -c a; zsh -c 'b'; eval 'c d'",
      ['0:dash -c a', '1:a', '0:zsh -c b', '1:b', '0:eval c d', '1:c d'],
    ],
    ['cat <<EOF | sh\nrm x\nEOF', ['0:cat', '0:sh', '1:rm x']],
    ['cat <<EOF && a\n$(b)\nEOF', ['1:b', '0:cat', '0:a']],
    ['echo "rm x" | bash', ['0:echo rm x', '0:bash', '1:rm x']],
    ['bash <<< "a b"', ['0:bash', '1:a b']],
  ])('%s', (line, expected) => {
    expect(shape(f.commands(line))).toEqual(expected)
  })

  it('keeps assignments, redirects and here-document input with the command', () => {
    const [cmd] = f.commands('FOO=1 cat <<EOF > out 2>&1\nhello\nEOF')
    expect(cmd?.assignments.map((a) => [a.name, a.value.value])).toEqual([['FOO', '1']])
    expect(cmd?.redirects.map((r) => [r.op, r.fd, r.target?.value])).toEqual([
      ['<<', undefined, 'hello\n'],
      ['>', undefined, 'out'],
      ['>&', 2, '1'],
    ])
    expect(cmd?.input).toBe('hello\n')
  })

  it('gives a compound statement redirect to each command inside, and keeps bare redirects', () => {
    const commands = f.commands('{ a; b; } > out; > /etc/x')
    expect(
      commands.map((c) => [c.argv[0]?.value, c.redirects.map((r) => r.target?.value)]),
    ).toEqual([
      ['a', ['out']],
      ['b', ['out']],
      [undefined, ['/etc/x']],
    ])
  })

  it('marks background and pipeline commands, what they read, and the function they are in', () => {
    const commands = f.commands(':(){ :|:& };:; curl -s x | sh')
    expect(
      commands.map((c) => [c.argv[0]?.value, c.concurrent, c.inFunction, c.pipedFrom]),
    ).toEqual([
      [':', true, ':', []],
      [':', true, ':', [':']],
      [':', false, undefined, []],
      ['curl', true, undefined, []],
      ['sh', true, undefined, ['curl']],
    ])
  })
})

describe('nesting limit', () => {
  const nested = (levels: number) =>
    'echo '.repeat(1) + '$(echo '.repeat(levels) + 'id' + ')'.repeat(levels)

  it(`accepts ${MAX_DEPTH} levels and refuses to guess beyond`, () => {
    expect(f.parse(nested(MAX_DEPTH)).ok).toBe(true)
    const deeper = f.parse(nested(MAX_DEPTH + 1))
    expect(deeper).toEqual({ ok: false, reason: expect.stringContaining('more than 4 levels') })
  })

  it('counts bash -c and eval bodies as levels too', () => {
    const line = `bash -c "sh -c 'eval \\"bash -c \\\\\\"sh -c id\\\\\\"\\"'"`
    expect(f.parse(line)).toEqual({ ok: false, reason: expect.stringContaining('levels deep') })
  })
})

describe('lines that cannot be judged', () => {
  it.each([
    ['echo "unterminated', 'never closed'],
    ['if then fi', 'does not parse'],
    ['(ls', 'missing'],
    ['a &&', 'missing'],
    [`bash -c "echo 'x"`, 'the code given to `bash -c`'],
    ['cat <<EOF\n`rm -rf ~`\nEOF', 'command substitution'],
    ['cat <<EOF; ls\nx\nEOF', 'does not parse'],
  ])('%s', (line, why) => {
    const parsed = f.parse(line)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) expect(parsed.reason).toContain(why)
  })

  it('restores the lone - that tree-sitter-bash drops before a here-document', () => {
    const [cmd] = f.commands('python3 - <<EOF\nprint(1)\nEOF')
    expect(cmd?.argv.map((w) => w.value)).toEqual(['python3', '-'])
  })

  it('moves words tree-sitter-bash hangs on a redirect back to the command', () => {
    const [cmd] = f.commands('echo > out hi there')
    expect(cmd?.argv.map((w) => w.value)).toEqual(['echo', 'hi', 'there'])
    expect(cmd?.redirects.map((r) => r.target?.value)).toEqual(['out'])
  })
})

describe('the folder each command runs in', () => {
  const cwds = (line: string) =>
    f.commands(line).map((c) => [c.argv.map((w) => w.value).join(' '), c.cwd, c.otherCwds])

  it('follows literal cds joined by &&', () => {
    expect(cwds('cd build && ls && cd .. && pwd')).toEqual([
      ['cd build', f.project, []],
      ['ls', join(f.project, 'build'), []],
      ['cd ..', join(f.project, 'build'), []],
      ['pwd', f.project, []],
    ])
  })

  it('after ;, also where the line started, because the cd may have failed', () => {
    expect(cwds('cd build; rm x').at(-1)).toEqual(['rm x', join(f.project, 'build'), [f.project]])
  })

  it('after cd || exit, only the new folder', () => {
    expect(cwds('cd build || exit 1; rm x').at(-1)).toEqual(['rm x', join(f.project, 'build'), []])
  })

  it('cd with no folder goes home; cd - and cd "$X" lead somewhere unknown', () => {
    expect(cwds('cd && a').at(-1)?.[1]).toBe(f.home)
    expect(cwds('cd - && a').at(-1)?.[1]).toBeUndefined()
    expect(cwds('cd "$X" && a').at(-1)?.[1]).toBeUndefined()
  })

  it('a cd in a subshell, a pipeline stage or the background does not move the line', () => {
    for (const line of ['(cd /tmp); a', 'cd /tmp | cat; a', 'cd /tmp & a']) {
      expect(cwds(line).at(-1)).toEqual(['a', f.project, []])
    }
  })

  it('a cd in a loop or a function makes the folder unknown where it may have run', () => {
    expect(cwds('for d in a b; do cd $d; done; x').at(-1)?.[2]).toContain(undefined)
    expect(cwds('f() { cd /tmp; }; f; x').at(-1)?.[2]).toContain(undefined)
  })

  it('follows cd inside eval, which runs in the same shell, and env -C for one program', () => {
    expect(cwds("eval 'cd /tmp' && x").at(-1)?.[1]).toBe('/tmp')
    expect(cwds('env -C /tmp x').at(-1)?.[1]).toBe('/tmp')
  })

  it('starts where it is told to', () => {
    expect(f.commands('ls', '/srv')[0]?.cwd).toBe('/srv')
  })
})

describe('wrappers', () => {
  it.each([
    ['sudo -u me -E rm x', 'rm x', ['sudo']],
    ['doas -u me rm x', 'rm x', ['doas']],
    ['env -i A=1 B=2 rm x', 'rm x', ['env']],
    ['nice -n 5 rm x', 'rm x', ['nice']],
    ['nice -10 rm x', 'rm x', ['nice']],
    ['nohup rm x', 'rm x', ['nohup']],
    ['timeout -s KILL 10 rm x', 'rm x', ['timeout']],
    ['time -p rm x', 'rm x', ['time']],
    ['command rm x', 'rm x', ['command']],
    ['exec rm x', 'rm x', ['exec']],
    ['stdbuf -oL -e 0 rm x', 'rm x', ['stdbuf']],
    ['ionice -c 3 rm x', 'rm x', ['ionice']],
    ['setsid -f rm x', 'rm x', ['setsid']],
    ['chroot /mnt rm x', 'rm x', ['chroot']],
    ['xargs -0 -n 1 rm -f', 'rm -f …', ['xargs']],
    ['xargs -I{} rm {}/x', 'rm {}/x', ['xargs']],
    ['sudo nice -n 1 env A=1 timeout 5 rm x', 'rm x', ['sudo', 'nice', 'env', 'timeout']],
    ['command -v rm', 'command -v rm', []],
    ['sudo -l', 'sudo -l', []],
  ])('%s', (line, argv, wrappers) => {
    const [cmd] = f.commands(line)
    expect(cmd?.argv.map((w) => w.value).join(' ')).toBe(argv)
    expect(cmd?.wrappers).toEqual(wrappers)
  })

  it('env assignments become the program’s assignments', () => {
    const [cmd] = f.commands('env A=1 rm x')
    expect(cmd?.assignments.map((a) => a.name)).toEqual(['A'])
  })

  it('the input xargs appends is unknown', () => {
    const [cmd] = f.commands('xargs rm')
    expect(cmd?.argv.at(-1)?.literal).toBe(false)
  })

  it('find -exec commands are judged as their own, with {} standing for what find finds', () => {
    const commands = f.commands('find . -name "*.o" -exec rm -f {} + -execdir sudo chmod 600 {} ;')
    expect(shape(commands).slice(1)).toEqual(['0:rm -f {}', '0:chmod 600 {}'])
    expect(commands[1]?.argv.at(-1)?.found).toBe(true)
    expect(commands[2]?.wrappers).toEqual(['sudo'])
    expect(commands[2]?.cwd).toBeUndefined()
  })

  it('watch and env -S hand their words to a shell, one level deeper', () => {
    expect(shape(f.commands("watch -n 1 'rm x'"))).toEqual(['0:watch -n 1 rm x', '1:rm x'])
    expect(shape(f.commands("env -S 'rm x'"))).toEqual(['0:env -S rm x', '1:rm x'])
  })
})
