// Tailwind 4 is configured in CSS (app/globals.css: @import "tailwindcss" and @theme). This file only
// records where classes are found, for editors and for anyone looking for "the tailwind config".
const config = {
  content: ["./app/**/*.{ts,tsx}", "./components/**/*.{ts,tsx}"],
  darkMode: "media",
};

export default config;
