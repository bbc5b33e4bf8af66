/**
 * An example Bridle plugin (main/core/kernel/README.md). Load it by naming it in config.json:
 *
 *   { "plugins": ["/path/to/example-plugin.mjs"] }
 *
 * (a relative path is taken from the data folder, where config.json is). It does two things:
 * - refuses a bash command that runs curl against a host not in ALLOWED_HOSTS, before anyone is
 *   asked about it (the call does not run; the model gets a GUARD_DENIED result saying why);
 * - replaces tokens that look like API keys in every tool output with [redacted], before the
 *   output is logged or shown to the model, and leaves a notice in the session saying so.
 *
 * It is an example, not a sandbox: a command can reach the network in other ways (wget, a script).
 * Copy the file and edit the lists to suit you.
 */

/** Hosts curl may reach. */
const ALLOWED_HOSTS = ['localhost', '127.0.0.1', 'example.com']

/** What counts as a token: OpenAI-style keys, GitHub tokens, AWS access key ids. */
const TOKEN_PATTERNS = [
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
]

/** The hosts a command's curl invocations name: URLs, or bare names with a dot, after `curl`. */
function curlHosts(command) {
  const hosts = []
  for (const segment of command.split(/[;&|\n]+/)) {
    const words = segment.trim().split(/\s+/)
    const at = words.findIndex((word) => word === 'curl' || word.endsWith('/curl'))
    if (at < 0) continue
    for (const word of words.slice(at + 1)) {
      if (word.startsWith('-')) continue
      const match = /^['"]?(?:[a-z]+:\/\/)?(?:[^@/\s]*@)?(\[[^\]]+\]|[^:/?#'"\s]+)/i.exec(word)
      const host = match?.[1]?.toLowerCase()
      if (host && (host.includes('.') || host === 'localhost')) hosts.push(host)
    }
  }
  return hosts
}

export default {
  name: 'example-plugin',
  setup(ctx) {
    // A guard: throwing refuses the call before anyone is asked about it.
    ctx.on('tool/guard', (input) => {
      if (input.tool.name !== 'bash' || !/\bcurl\b/.test(input.args.command)) return
      const hosts = curlHosts(input.args.command)
      const refused = hosts.filter((host) => !ALLOWED_HOSTS.includes(host))
      if (hosts.length === 0) throw new Error('it runs curl, and no host could be read from it')
      if (refused.length > 0)
        throw new Error(
          `curl may reach only ${ALLOWED_HOSTS.join(', ')}, not ${refused.join(', ')}`,
        )
    })
    // Middleware after the body: the output is rewritten before it is logged or shown.
    const notice = ctx.service('notice')
    ctx.on('tool/post', async (input, next) => {
      const result = await next(input)
      let count = 0
      let output = result.output
      for (const pattern of TOKEN_PATTERNS) {
        output = output.replace(pattern, () => {
          count++
          return '[redacted]'
        })
      }
      if (count === 0) return result
      notice(
        `example-plugin redacted ${count} token${count === 1 ? '' : 's'} from the output of ${input.tool.name}`,
      )
      return { ...result, output }
    })
  },
}
