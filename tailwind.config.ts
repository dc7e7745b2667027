// Tailwind 4 is configured in CSS (app/globals.css: @import "tailwindcss" and @theme). This file only
// records where classes are found, for editors and for anyone looking for "the tailwind config". The dark
// variant is defined in app/globals.css (the system's scheme, or the theme chosen in the header).
const config = {
  content: ["./app/**/*.{ts,tsx}", "./components/**/*.{ts,tsx}"],
};

export default config;
