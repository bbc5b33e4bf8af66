/**
 * How to start a local model server, for when discovery found none: the commands people need,
 * each on the port discovery probes, so that "Look again" then finds it.
 */
export function ServerHelp() {
  return (
    <div className="first-run-help" aria-label="How to start a local model server">
      <h2>No local model server answered</h2>
      <p className="muted">Start one of these, then press “Look again”.</p>
      <dl>
        <dt>Ollama</dt>
        <dd>
          Install it from ollama.com, then run <code>ollama serve</code> and pull a model with{' '}
          <code>ollama pull qwen3:8b</code>. It listens on port 11434.
        </dd>
        <dt>LM Studio</dt>
        <dd>
          Load a model, then enable the local server (Developer tab, “Start Server”, or{' '}
          <code>lms server start</code>). It listens on port 1234.
        </dd>
        <dt>llama.cpp</dt>
        <dd>
          Run <code>llama-server -m model.gguf --port 8080</code>.
        </dd>
        <dt>vLLM</dt>
        <dd>
          Run <code>vllm serve MODEL</code>. It listens on port 8000.
        </dd>
      </dl>
    </div>
  )
}
