import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { allows, type Permission } from '../../../src/auth/roles';
import type { Role } from '../../../src/model/applications';
import { currentToken, onSignedOut, setToken } from './client';
import { call } from './typed';

// Who is using the console: with auth off everyone may do everything; with auth on the console
// signs in with an application key (POST /api/token) and offers only what the key's roles allow.

export interface Session {
  /** undefined while the server is asked whether auth is on. */
  authOn: boolean | undefined;
  signedIn: boolean;
  name?: string;
  roles: Role[];
  can(p: Permission): boolean;
  signIn(keyId: string, keySecret: string): Promise<void>;
  signOut(): void;
}

const SessionContext = createContext<Session | undefined>(undefined);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [authOn, setAuthOn] = useState<boolean | undefined>(undefined);
  const [user, setUser] = useState<{ name?: string; roles: Role[] } | undefined>(undefined);

  const loadUser = useCallback(async () => {
    const info = await call('GET /api/token/userInfo');
    setUser({ name: info.name, roles: (info.roles ?? []).map((r) => r.name) });
  }, []);

  useEffect(() => {
    // /api/version needs a token exactly when auth is on.
    void fetch('/api/version').then(
      async (r) => {
        const on = r.status === 401;
        if (on && currentToken()) await loadUser().catch(() => setToken(undefined));
        setAuthOn(on);
      },
      () => setAuthOn(false),
    );
  }, [loadUser]);

  useEffect(
    () =>
      onSignedOut(() => {
        setToken(undefined);
        setUser(undefined);
      }),
    [],
  );

  const value = useMemo<Session>(() => {
    const signedIn = authOn === false || user !== undefined;
    return {
      authOn,
      signedIn,
      name: user?.name,
      roles: user?.roles ?? [],
      can: (p) => authOn === false || (user !== undefined && allows(user.roles, p)),
      signIn: async (keyId, keySecret) => {
        const { token } = await call('POST /api/token', { body: { keyId, keySecret } });
        setToken(token);
        await loadUser();
      },
      signOut: () => {
        setToken(undefined);
        setUser(undefined);
      },
    };
  }, [authOn, user, loadUser]);

  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}
