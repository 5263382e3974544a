import CodeMirror, { type ReactCodeMirrorRef } from '@uiw/react-codemirror';
import { json, jsonParseLinter } from '@codemirror/lang-json';
import { linter, lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { useEffect, useMemo, useRef } from 'react';
import { ApiFailure } from '../api/client';
import { locatePath } from '../model/json-locate';
import { useTheme } from './theme';

// JSON syntax errors are marked as one types; the server's validation errors (`problem`) are
// put on the lines their paths point at, until the text changes.
const parseErrors = jsonParseLinter();

/** The server's refusal as editor diagnostics: one per validation error, or its message on the first line. */
export function diagnosticsOf(text: string, problem: unknown): Diagnostic[] {
  if (!(problem instanceof ApiFailure)) return [];
  const errors = problem.validationErrors.length ? problem.validationErrors : [{ path: undefined, message: problem.message }];
  return errors.map((e) => ({
    ...locatePath(text, e.path),
    severity: 'error' as const,
    message: e.path ? `${e.path}: ${e.message}` : e.message,
    source: 'server',
  }));
}

export function JsonEditor({
  value,
  onChange,
  height = '420px',
  testId,
  label,
  problem,
}: {
  value: string;
  onChange: (v: string) => void;
  height?: string;
  testId?: string;
  label: string;
  problem?: unknown;
}) {
  const { dark } = useTheme();
  const ref = useRef<ReactCodeMirrorRef>(null);
  const server = useRef<{ doc: string; diagnostics: Diagnostic[] }>(undefined);
  const extensions = useMemo(
    () => [
      json(),
      linter(
        (view) => {
          const s = server.current;
          return s && s.doc === view.state.doc.toString() ? [...parseErrors(view), ...s.diagnostics] : parseErrors(view);
        },
        { delay: 300 },
      ),
      lintGutter(),
    ],
    [],
  );
  useEffect(() => {
    const view = ref.current?.view;
    if (!view) return;
    const doc = view.state.doc.toString();
    server.current = { doc, diagnostics: diagnosticsOf(doc, problem) };
    // Shown now; the linter keeps them on its later runs while the text is unchanged.
    view.dispatch(setDiagnostics(view.state, [...parseErrors(view), ...server.current.diagnostics]));
  }, [problem]);
  return (
    <div className="editor" data-testid={testId}>
      <CodeMirror
        ref={ref}
        value={value}
        height={height}
        extensions={extensions}
        onChange={onChange}
        theme={dark ? 'dark' : 'light'}
        basicSetup={{ foldGutter: true, tabSize: 2 }}
        aria-label={label}
      />
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
