import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';

// Light or dark: the system's choice unless the user picked one (kept in localStorage).

type Choice = 'auto' | 'light' | 'dark';
const KEY = 'baton.console.theme';
const ThemeContext = createContext<{ dark: boolean; choice: Choice; setChoice: (c: Choice) => void }>({
  dark: false,
  choice: 'auto',
  setChoice: () => undefined,
});

export function ThemeProvider({ children }: { children: ReactNode }) {
  const media = window.matchMedia('(prefers-color-scheme: dark)');
  const [choice, setChoiceState] = useState<Choice>(() => (localStorage.getItem(KEY) as Choice | null) ?? 'auto');
  const [systemDark, setSystemDark] = useState(media.matches);
  useEffect(() => {
    const f = (e: MediaQueryListEvent): void => setSystemDark(e.matches);
    media.addEventListener('change', f);
    return () => media.removeEventListener('change', f);
  }, [media]);
  const dark = choice === 'dark' || (choice === 'auto' && systemDark);
  useEffect(() => {
    document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  }, [dark]);
  const setChoice = (c: Choice): void => {
    localStorage.setItem(KEY, c);
    setChoiceState(c);
  };
  return <ThemeContext.Provider value={{ dark, choice, setChoice }}>{children}</ThemeContext.Provider>;
}

export const useTheme = () => useContext(ThemeContext);

export function ThemeSwitch() {
  const { choice, setChoice } = useTheme();
  return (
    <label className="inline">
      <span className="muted">Theme</span>
      <select value={choice} onChange={(e) => setChoice(e.target.value as Choice)} aria-label="Colour scheme">
        <option value="auto">System</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  );
}
