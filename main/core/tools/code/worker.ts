/**
 * The code worker: a `worker_threads` entry that runs programs in the engine (`engine.ts`), one
 * at a time, off the host's thread. Tool calls, console lines and the end go to the host as
 * messages (`messages.ts`); the host answers calls with `reply`. The host terminates this thread
 * on cancel and at the time limit, so a busy loop never holds the host's event loop.
 *
 * Built as its own entry (`out/main/code-worker.js`, see electron.vite.config.ts); from sources
 * the host starts it through tsx.
 */
import { parentPort, workerData } from 'node:worker_threads'
import type { MessagePort } from 'node:worker_threads'
import { loadEngine, runInEngine } from './engine.js'
import type { CallReply, EngineEnd, FromWorker, ToWorker, WorkerData } from './messages.js'

function serve(port: MessagePort, data: WorkerData): void {
  const send = (message: FromWorker) => port.postMessage(message)
  const waiting = new Map<number, (reply: CallReply) => void>()
  let nextId = 0
  const engine = loadEngine(data.heapBytes)

  port.on('message', (message: ToWorker) => {
    if (message.type === 'reply') {
      waiting.get(message.id)?.(message.reply)
      waiting.delete(message.id)
      return
    }
    void (async () => {
      let end: EngineEnd
      try {
        const quickjs = await engine
        send({ type: 'started' })
        end = await runInEngine(
          quickjs,
          message.code,
          {
            toolNames: message.toolNames,
            call: (name, args) =>
              new Promise<CallReply>((resolve) => {
                const id = ++nextId
                waiting.set(id, resolve)
                send({ type: 'call', id, name, args })
              }),
            log: (line) => send({ type: 'log', line }),
          },
          message.limits,
        )
      } catch (error) {
        // The engine itself failed (it could not load, or it trapped): this worker is done.
        const text = error instanceof Error ? error.message : String(error)
        end = { ok: false, code: 'CODE_FAILED', message: `The program's engine failed: ${text}` }
      }
      waiting.clear()
      send({ type: 'end', end })
    })()
  })
}

if (parentPort) serve(parentPort, workerData as WorkerData)
