import { useEffect, useState, type FormEvent } from 'react';
import { call } from '../api/typed';
import { useAsync } from '../api/use-async';
import { ErrorBanner } from '../components/common';
import { JsonEditor, parseJson } from '../components/json-editor';
import { enc, useLocation, useNavigate } from '../router';

/** Starts an execution through POST /api/workflow (name, version, input, correlation id, priority, task-to-domain). */
export function StartWorkflowView() {
  const { search } = useLocation();
  const navigate = useNavigate();
  const names = useAsync(() => call('GET /api/metadata/workflowdef/names-and-versions'), []);
  const [name, setName] = useState(search.get('name') ?? '');
  const [version, setVersion] = useState(search.get('version') ?? '');
  const [correlationId, setCorrelationId] = useState('');
  const [priority, setPriority] = useState('0');
  const [input, setInput] = useState('{\n}');
  const [domains, setDomains] = useState('{\n}');
  const [error, setError] = useState<unknown>();

  // A template of the definition's declared inputs.
  const def = useAsync(
    async () =>
      name ? call('GET /api/metadata/workflowdef/{name}', { params: { name }, query: { version: version || undefined } }).catch(() => undefined) : undefined,
    [name, version],
  );
  useEffect(() => {
    const params = def.data?.inputParameters ?? [];
    if (params.length && input.replace(/\s/g, '') === '{}') setInput(JSON.stringify(Object.fromEntries(params.map((p) => [p, ''])), null, 2));
  }, [def.data]);

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    setError(undefined);
    const i = parseJson(input);
    const d = parseJson(domains);
    if (!i.ok) return setError(new Error(`Input: ${i.message}`));
    if (!d.ok) return setError(new Error(`Task to domain: ${d.message}`));
    try {
      const id = await call('POST /api/workflow', {
        body: {
          name,
          ...(version ? { version: Number(version) } : {}),
          input: i.value,
          ...(correlationId ? { correlationId } : {}),
          priority: Number(priority),
          taskToDomain: d.value,
        },
      });
      navigate(`/executions/${enc(String(id))}`);
    } catch (err) {
      setError(err);
    }
  };
  const versions = names.data?.[name] ?? [];
  return (
    <section>
      <h1>Start a workflow</h1>
      <form className="panel" onSubmit={(e) => void submit(e)} data-testid="start-form">
        <div className="filters">
          <label>
            Workflow
            <select name="name" value={name} onChange={(e) => (setName(e.target.value), setVersion(''))} required>
              <option value="">choose…</option>
              {Object.keys(names.data ?? {})
                .sort()
                .map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
            </select>
          </label>
          <label>
            Version
            <select name="version" value={version} onChange={(e) => setVersion(e.target.value)}>
              <option value="">latest</option>
              {versions.map((v) => (
                <option key={v.version} value={v.version}>
                  {v.version}
                </option>
              ))}
            </select>
          </label>
          <label>
            Correlation id
            <input name="correlationId" value={correlationId} onChange={(e) => setCorrelationId(e.target.value)} />
          </label>
          <label>
            Priority (0–99)
            <input name="priority" type="number" min={0} max={99} value={priority} onChange={(e) => setPriority(e.target.value)} />
          </label>
        </div>
        <div className="editor-layout" style={{ marginTop: 12 }}>
          <div>
            <h3>Input</h3>
            <JsonEditor value={input} onChange={setInput} height="220px" label="Workflow input JSON" testId="start-input" />
          </div>
          <div>
            <h3>Task to domain</h3>
            <JsonEditor value={domains} onChange={setDomains} height="220px" label="Task to domain JSON" testId="start-domains" />
          </div>
        </div>
        <ErrorBanner error={error} title="Not started" />
        <div className="row" style={{ marginTop: 12 }}>
          <button type="submit" className="primary" disabled={!name}>
            Start
          </button>
        </div>
      </form>
    </section>
  );
}
