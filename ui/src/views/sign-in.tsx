import { useState, type FormEvent } from 'react';
import { useSession } from '../api/session';
import { ErrorBanner } from '../components/common';

export function SignInView() {
  const session = useSession();
  const [keyId, setKeyId] = useState('');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await session.signIn(keyId.trim(), secret);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="panel signin" onSubmit={(e) => void submit(e)} data-testid="sign-in">
      <h1>Sign in to Baton</h1>
      <p className="muted">Authentication is on: sign in with an application's access key. The console offers what the key's roles allow.</p>
      <label>
        Key id
        <input name="keyId" autoComplete="username" value={keyId} onChange={(e) => setKeyId(e.target.value)} required autoFocus />
      </label>
      <label>
        Key secret
        <input name="keySecret" type="password" autoComplete="current-password" value={secret} onChange={(e) => setSecret(e.target.value)} required />
      </label>
      <ErrorBanner error={error} title="Not signed in" />
      <button type="submit" className="primary" disabled={busy}>
        Sign in
      </button>
    </form>
  );
}
