import { createContext, useCallback, useContext, useEffect, useMemo, useState, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from 'react';

// History-API routing for a handful of views: the path picks the view, the query holds its state
// (filters, selected task), so every view is a shareable URL. Hand-written: react-router would add
// a dependency for the 60 lines used here.

interface Location {
  path: string;
  search: URLSearchParams;
}

const read = (): Location => ({ path: window.location.pathname, search: new URLSearchParams(window.location.search) });

const RouterContext = createContext<{ location: Location; navigate: (to: string, replace?: boolean) => void }>({ location: read(), navigate: () => undefined });

export function Router({ children }: { children: ReactNode }) {
  const [location, setLocation] = useState(read);
  useEffect(() => {
    const onPop = (): void => setLocation(read());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const navigate = useCallback((to: string, replace = false) => {
    if (replace) window.history.replaceState(null, '', to);
    else window.history.pushState(null, '', to);
    setLocation(read());
  }, []);
  const value = useMemo(() => ({ location, navigate }), [location, navigate]);
  return <RouterContext.Provider value={value}>{children}</RouterContext.Provider>;
}

export const useLocation = (): Location => useContext(RouterContext).location;
export const useNavigate = (): ((to: string, replace?: boolean) => void) => useContext(RouterContext).navigate;

/** Matches `/executions/:id` style patterns; parameters are decoded. */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const p = pattern.split('/').filter(Boolean);
  const s = path.split('/').filter(Boolean);
  if (p.length !== s.length) return undefined;
  const out: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i]!.startsWith(':')) out[p[i]!.slice(1)] = decodeURIComponent(s[i]!);
    else if (p[i] !== s[i]) return undefined;
  }
  return out;
}

export function Link({ to, children, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const navigate = useNavigate();
  const onClick = (e: MouseEvent<HTMLAnchorElement>): void => {
    rest.onClick?.(e);
    // Let the browser open new tabs and windows itself.
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return (
    <a href={to} {...rest} onClick={onClick}>
      {children}
    </a>
  );
}

export const enc = encodeURIComponent;
