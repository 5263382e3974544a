import CodeMirror from '@uiw/react-codemirror';
import { json } from '@codemirror/lang-json';
import { useTheme } from './theme';

const extensions = [json()];

export function JsonEditor({ value, onChange, height = '420px', testId, label }: { value: string; onChange: (v: string) => void; height?: string; testId?: string; label: string }) {
  const { dark } = useTheme();
  return (
    <div className="editor" data-testid={testId}>
      <CodeMirror value={value} height={height} extensions={extensions} onChange={onChange} theme={dark ? 'dark' : 'light'} basicSetup={{ foldGutter: true, tabSize: 2 }} aria-label={label} />
    </div>
  );
}

/** Parses editor text; the message names the problem for the user. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, message: `Not valid JSON: ${(e as Error).message}` };
  }
}
