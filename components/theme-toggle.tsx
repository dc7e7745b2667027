"use client";
// Light, dark or the system's choice. The choice is a cookie the root layout reads, so the server renders <html>
// with the right class and nothing flashes on load; "system" removes the cookie and follows prefers-color-scheme.
import { useState } from "react";
import { THEME_COOKIE, THEMES, type Theme } from "@/lib/theme";

export function ThemeToggle({ initial }: { initial: Theme }) {
  const [theme, setTheme] = useState<Theme>(initial);
  const choose = (next: Theme) => {
    setTheme(next);
    const root = document.documentElement;
    root.classList.remove("light", "dark");
    if (next === "system") document.cookie = `${THEME_COOKIE}=; path=/; max-age=0; samesite=lax`;
    else {
      root.classList.add(next);
      document.cookie = `${THEME_COOKIE}=${next}; path=/; max-age=31536000; samesite=lax`;
    }
  };
  return (
    <select
      aria-label="Colour theme"
      value={theme}
      onChange={(e) => choose(e.target.value as Theme)}
      className="rounded-md border border-slate-300 bg-white px-1 py-1 text-xs dark:border-slate-700 dark:bg-slate-900"
    >
      {THEMES.map((t) => (
        <option key={t} value={t}>
          {t === "system" ? "System" : t === "light" ? "Light" : "Dark"}
        </option>
      ))}
    </select>
  );
}
