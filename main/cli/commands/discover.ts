import { discoverEndpoints } from '../../core/models/discovery.js'
import type { ModelInfo } from '../../core/models/types.js'
import type { CommandArgs, CommandContext } from './command.js'
import { parsePort } from './options.js'

/** `bridle discover`: local model servers on their usual ports (or `--port`) and their models. */
export async function run({ values }: CommandArgs, { print }: CommandContext): Promise<number> {
  const found = await discoverEndpoints(
    values.port ? { ports: values.port.map((p) => parsePort(p)) } : {},
  )
  if (found.length === 0)
    print('No local model server answered on the usual ports (11434, 1234, 8080, 8000).')
  for (const endpoint of found) {
    const models = endpoint.models.map(describeListedModel).join(', ')
    print(
      `${endpoint.baseUrl}  ${endpoint.kind}  ${endpoint.error ? `${endpoint.error.code}: ${endpoint.error.message}` : models || '(no models)'}`,
    )
  }
  return 0
}

/** `qwen3:8b (4,096 tokens: the server's default; trained for 40,960)`. */
function describeListedModel(model: ModelInfo): string {
  if (model.contextWindow === undefined) return model.id
  const source = {
    server: 'what the server runs',
    default: "the server's default",
    advertised: 'advertised; the server may run less',
  }[model.contextSource ?? 'advertised']
  const trained =
    model.trainedContext === undefined
      ? ''
      : `; trained for ${model.trainedContext.toLocaleString('en')}`
  return `${model.id} (${model.contextWindow.toLocaleString('en')} tokens: ${source}${trained})`
}
