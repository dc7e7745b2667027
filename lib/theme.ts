// The colour theme a person chose (components/theme-toggle.tsx): a cookie, read by the root layout.
export const THEME_COOKIE = "toolgate-theme";
export const THEMES = ["system", "light", "dark"] as const;
export type Theme = (typeof THEMES)[number];

export function themeFromCookie(value: string | undefined): Theme {
  return value === "light" || value === "dark" ? value : "system";
}
