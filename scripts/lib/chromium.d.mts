/** Browsers for the browser tests, best first (see chromium.mjs). */
export const CHROMIUM_CANDIDATES: string[];
